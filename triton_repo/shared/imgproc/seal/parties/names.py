"""What a page's text says about its parties: the labels that name a party's role, the words
that end an organisation's name, and the titles that tell what a document is. These are facts
of Chinese documents, not choices, so they are named constants; every text here is compared
after normalization (`Words.normalized`: NFKC, no spaces, simplified), so 名 称 and 名称, a
full-width colon and a half-width one are the same."""

from __future__ import annotations

import re

# Roles a label names, longest first within each (销售方 before 销方). A contract's 供方 and 需方
# (卖方, 买方) are its seller and buyer, as an invoice's are; 委托方 and 受托方 are its
# 甲方 and 乙方 in all but name.
ROLE_LABELS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("seller", ("销售方", "销售单位", "销货单位", "销方", "供货方", "供方", "卖方", "出卖人")),
    ("buyer", ("购买方", "购买单位", "购货单位", "购方", "需方", "买方", "买受人")),
    ("party_a", ("甲方", "委托方", "委托人")),
    ("party_b", ("乙方", "受托方", "受托人")),
    ("party_c", ("丙方",)),
)
INVOICE_ROLES = ("seller", "buyer")
CONTRACT_ROLES = ("party_a", "party_b", "party_c")
# An invoice's 名称, beside its role (销售方 printed down a column at its left); its 名 spaced
# apart is found as a line of its own, leaving 称: (the colon tells it from a word).
NAME_LABELS = ("名称", "称:")
TAX_LABELS = ("统一社会信用代码/纳税人识别号", "统一社会信用代码", "纳税人识别号", "纳税人登记号")
# What may stand between a label and its value: a parenthesis (甲方（盖章）, 甲方(签章)), the
# label's own tail (销售方名称) and a colon.
ASIDE = re.compile(r"[(（][^()（）]{0,6}[)）]")  # (盖章), (签章), (甲方), (章)
OPEN_ASIDE = re.compile(r"[(（][^()（）]{0,6}$")  # ...its closing bracket unread: 销售方（章
# ...of which these ask for the seal itself: printed after the name the seal is stamped over
# (北京化工大学教务处（盖章）), they are no part of the name.
SEAL_ASIDE = re.compile(r"[(（](?:盖章|签章|公章|印章|章)[)）]")
LABEL_TAIL = re.compile(rf"^(?:{ASIDE.pattern})?(?:名称|单位名称|信息)?(?:{ASIDE.pattern})?[:：]?")
TAX_ID = re.compile(r"[0-9A-Z]{15,20}")
# The last words of an organisation's name, longest first where one ends another.
ORG_ENDINGS = (
    "有限责任公司",
    "股份有限公司",
    "有限公司",
    "公司",
    "集团",
    "大学",
    "学院",
    "学校",
    "中学",
    "小学",
    "幼儿园",
    "委员会",
    "组委会",
    "执委会",
    "办公室",
    "协会",
    "学会",
    "研究会",
    "联合会",
    "基金会",
    "研究院",
    "研究所",
    "中心",
    "医院",
    "银行",
    "支行",
    "分行",
    "事务所",
    "合作社",
    "联社",
    "报社",
    "出版社",
    "政府",
    "法院",
    "检察院",
    "工会",
    "商会",
    "酒吧",
    "加油站",
    "工作室",
    "大赛",  # a contest's seal says its name, its printed issuer adds 组委会
    "教务处",
    "局",
    "厅",
    "部",
    "处",
    "委",
    "店",
    "厂",
    "馆",
)
# The words of an office that signs for its organisation, printed after the organisation's
# name (中国大学生服务外包创新创业大赛组委会): the organisation's seal does not say them.
OFFICE_WORDS = ("组委会", "执委会", "秘书处", "办公室")
# Short forms a page prints for an organisation whose seal spells its name out: the Communist
# Youth League's committees print 共青团XX委员会 and stamp a seal whose rim reads
# 中国共产主义青年团XX委员会 (its rules fix the seal's wording). Only forms that a seal by rule
# spells out belong here; a name's other misreadings are the link's tolerance, not this table.
SHORT_FORMS = (("共青团", "中国共产主义青年团"),)
DATE_CHARS = "0123456789〇零二"  # how a date starts (2019年, 二〇一九年): it may follow a name
NAME_MARKS = '()（）、“”"·&'  # what a name may carry besides characters, letters and digits
# A name is a run of these: CJK characters, letters and digits, brackets (同方知网（北京）), and
# the marks names carry (四、六级, “中国软件杯”); a colon, a comma or a full stop ends it.
NAME_RUN = re.compile(rf"[\u4e00-\u9fffA-Za-z0-9{re.escape(NAME_MARKS)}]+")
# Words that say a run is not a name but a sentence or a field (之日起, 盖章, 地址).
NOT_NAMES = (
    "盖章",
    "签章",
    "签字",
    "地址",
    "电话",
    "开户行",
    "账号",
    "日期",
    "备注",
    "合计",
    "金额",
    "专用章",  # a seal's purpose line (赛事认证专用章), read under it
    # ...and the words of a sentence that happens to end as a name does (由此...全部, 向人民法院)
    "的",
    "由",
    "向",
    "请",
    "应当",  # not 应 alone: 应用 and 应急 are words of names (全国应用型人才...大赛, 应急管理局)
    "将",
    "被",
    "全部",
    "一切",
    "同意",
    "提交",
    "根据",
    "按照",
)
# Titles by kind (a short line holding one): an invoice names itself 发票; a contract 合同 or
# 协议; a certificate or notice one of the rest.
INVOICE_TITLES = ("发票",)
CONTRACT_TITLES = ("合同", "协议")
CERTIFICATE_TITLES = (
    "证书",
    "证明",
    "奖状",
    "荣誉",
    "聘书",
    "通知",
    "公告",
    "决定",
    "通报",
    "表彰",
    "特发此证",
)
# What a document's title calls it after its issuer's name (北京理工大学珠海学院学生成绩单,
# 湖北大学学生成绩卡): the end of a title that starts with the organisation that issues it.
DOCUMENT_NAMES = (*CERTIFICATE_TITLES, "成绩单", "成绩表", "成绩卡")
# An invoice form's printed supervision seal (全国统一发票监制章) says this: it is no party's.
SUPERVISION = "监制"
TITLE_CHARS = 24  # a title is a short line; a sentence may mention 发票 or 合同 in passing
