"""Generated vocabulary for synthetic seals: company names, seal purposes, tax IDs, codes.

Names follow the patterns real company seals use (city + trade name + trade + legal form,
e.g. 上海星辰科技有限公司, or a branch: ...有限公司绵阳分公司), so the rim text varies in
length (6 to 20 characters) and content. All characters are common simplified Chinese that
the PP-OCRv4 character table contains.
"""

from __future__ import annotations

import numpy as np
from imgproc.seal.codes import CREDIT_ALPHABET, credit_check, org_check

CITIES = (
    "上海",
    "北京",
    "深圳",
    "广州",
    "杭州",
    "南京",
    "成都",
    "武汉",
    "苏州",
    "天津",
    "重庆",
    "西安",
    "青岛",
    "厦门",
    "宁波",
    "绵阳",
    "郑州",
    "长沙",
    "合肥",
    "福州",
    "济南",
    "昆明",
    "大连",
    "无锡",
    "佛山",
    "东莞",
    "南昌",
    "温州",
    "常州",
    "徐州",
    "珠海",
    "贵阳",
    "兰州",
    "太原",
    "石家庄",
    "南宁",
    "六安",
    "慈溪",
    "义乌",
    "烟台",
    "洛阳",
    "宜昌",
    "泉州",
    "嘉兴",
    "绍兴",
    "扬州",
)
TRADE_NAMES = (
    "星辰",
    "华信",
    "鼎丰",
    "恒泰",
    "宏达",
    "瑞祥",
    "锦程",
    "博远",
    "天成",
    "金桥",
    "新创",
    "嘉和",
    "盛世",
    "永安",
    "中联",
    "海川",
    "诚信",
    "兴业",
    "汇通",
    "德瑞",
    "君和",
    "荣盛",
    "百振",
    "腾信",
    "科兰",
    "光明",
    "远航",
    "正泰",
    "华宇",
    "东方",
    "长城",
    "富临",
    "立达",
    "明珠",
    "通达",
    "新世纪",
    "佳音",
    "美嘉",
    "安信",
    "同创",
    "万达",
    "力帆",
    "宏图",
    "银河",
    "丰源",
    "绿洲",
    "晨光",
    "康华",
)
TRADES = (
    "科技",
    "电子",
    "贸易",
    "商贸",
    "物流",
    "建筑工程",
    "机电",
    "信息技术",
    "文化传媒",
    "餐饮管理",
    "医药",
    "环保科技",
    "网络科技",
    "电气设备",
    "物业管理",
    "教育咨询",
    "通讯设备",
    "汽车服务",
    "装饰工程",
    "食品",
    "服装",
    "印务",
    "广告",
    "软件",
    "化工",
    "能源",
    "投资",
    "实业",
    "农业开发",
)
LEGAL_FORMS = ("有限公司", "有限公司", "有限公司", "股份有限公司", "有限责任公司", "集团有限公司")
INSTITUTIONS = ("人民政府", "教育局", "财政局", "人民医院", "中学", "委员会", "税务局", "档案馆")
DISTRICTS = ("市", "区", "县", "新区", "开发区")
PURPOSES = (
    "合同专用章",
    "发票专用章",
    "财务专用章",
    "业务专用章",
    "人事专用章",
    "销售专用章",
    "质检专用章",
    "采购专用章",
    "行政专用章",
)
RECT_WORDS = ("现金付讫", "转账收讫", "现金收讫", "已验证", "作废", "已付款", "收讫", "已审核", "样品")
MIN_RIM_CHARS = 6
MAX_RIM_CHARS = 20
BRANCH_PROBABILITY = 0.15
INSTITUTION_PROBABILITY = 0.1
CODE_LENGTH = 13
OLD_TAX_ID_LENGTH = 15


def _pick(rng: np.random.Generator, options: tuple[str, ...]) -> str:
    return options[int(rng.integers(len(options)))]


def _company(rng: np.random.Generator) -> str:
    city = _pick(rng, CITIES) + ("市" if rng.random() < 0.3 else "")
    name = city + _pick(rng, TRADE_NAMES) + _pick(rng, TRADES) + _pick(rng, LEGAL_FORMS)
    if rng.random() < BRANCH_PROBABILITY:
        name += _pick(rng, CITIES) + "分公司"
    return name


def _institution(rng: np.random.Generator) -> str:
    return _pick(rng, CITIES) + _pick(rng, DISTRICTS) + _pick(rng, INSTITUTIONS)


def organisation_name(rng: np.random.Generator, max_chars: int = MAX_RIM_CHARS) -> str:
    """A company or institution name of 6 to `max_chars` characters."""
    for _ in range(100):
        make = _institution if rng.random() < INSTITUTION_PROBABILITY else _company
        name = make(rng)
        if MIN_RIM_CHARS <= len(name) <= max_chars:
            return name
    return "上海星辰科技有限公司"


def issuer(rng: np.random.Generator) -> str:
    """A government body or public institution of 6 to `MAX_RIM_CHARS` characters: what heads
    an official document and rims its seal (上海市教育局)."""
    for _ in range(100):
        name = _institution(rng)
        if MIN_RIM_CHARS <= len(name) <= MAX_RIM_CHARS:
            return name
    return "北京市人民政府"


def purpose(rng: np.random.Generator) -> str:
    """The inner line of a special-purpose seal, e.g. 合同专用章."""
    return _pick(rng, PURPOSES)


def rect_word(rng: np.random.Generator) -> str:
    """The text of a rectangular office stamp, e.g. 现金付讫."""
    return _pick(rng, RECT_WORDS)


def seal_code(rng: np.random.Generator) -> str:
    """A 13-digit seal code as printed along the bottom arc of registered seals."""
    return "".join(str(int(d)) for d in rng.integers(0, 10, CODE_LENGTH))


def tax_id(rng: np.random.Generator) -> str:
    """An 18-character unified social credit code (91, region, organisation code, check) or a
    15-character old tax ID (region, organisation code), with the check characters real ones
    carry (`imgproc.seal.codes`). The draws are those of the codes without checks, whose last
    characters the checks replace, so that a seed's pages stay the pages they were."""
    region = "".join(str(int(d)) for d in rng.integers(0, 10, 6))
    if rng.random() < 0.3:
        org = "".join(str(int(d)) for d in rng.integers(0, 10, OLD_TAX_ID_LENGTH - 6))[:-1]
        return region + org + org_check(org)
    body = "".join(CREDIT_ALPHABET[int(i)] for i in rng.integers(0, len(CREDIT_ALPHABET), 10))
    head = "91" + region + body[:8] + org_check(body[:8])
    return head + credit_check(head)


def page_line(rng: np.random.Generator) -> str:
    """A line of ordinary document print (labels, names, amounts, dates)."""
    labels = ("名称：", "纳税人识别号：", "地址、电话：", "开户行及账号：", "备注：", "合计金额：")
    kind = rng.integers(4)
    if kind == 0:
        return _pick(rng, labels) + organisation_name(rng)
    if kind == 1:
        return f"开票日期：{rng.integers(2015, 2025)}年{rng.integers(1, 13)}月{rng.integers(1, 29)}日"
    if kind == 2:
        return f"价税合计（小写）￥{rng.integers(100, 99999)}.{rng.integers(0, 100):02d}"
    return "甲方：" + organisation_name(rng) + "　乙方：" + organisation_name(rng)
