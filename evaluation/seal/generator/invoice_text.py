"""Generated vocabulary for invoices: titles, supervision-seal lines, sellers, goods, amounts.

A VAT invoice (增值税专用发票 / 普通发票) is titled with its issuing province, carries the
printed supervision seal (全国统一发票监制章) of that province's tax bureau, and names buyer
and seller with their tax IDs; the seller's invoice seal (发票专用章) repeats the seller's
name and tax ID. Everything here is drawn from the `rng`; no real invoice is copied.
"""

from __future__ import annotations

import numpy as np

from . import vocab

# Provinces and the cities that issue their own invoices (计划单列市).
PROVINCES = tuple(
    "四川 上海 江苏 北京 广东 浙江 山东 湖北 河南 福建 安徽 湖南 天津 重庆 辽宁 黑龙江 陕西".split()
)
CITY_ISSUERS = tuple("深圳 厦门 宁波 青岛 大连".split())
MUNICIPALITIES = ("上海", "北京", "天津", "重庆")  # provinces whose bureau is a 市税务局
SUPERVISION_RIM = "全国统一发票监制章"
SUPERVISION_BOTTOM = "国家税务总局监制"  # the pre-2018 bottom arc
TAX_ADMINISTRATION = "国家税务总局"  # the post-2018 middle line, over the local bureau
NEW_STYLE_PROBABILITY = 0.35  # post-2018 监制章 (国家税务总局 over 深圳市税务局) are rarer on scans
TITLES = ("增值税专用发票", "增值税普通发票", "增值税电子普通发票", "增值税电子专用发票")
COPY_NAMES = ("发 票 联", "抵 扣 联", "记 账 联")
GOODS = (
    "*餐饮服务*餐饮服务",
    "*信息技术服务*技术服务费",
    "*运输服务*国内货物运输",
    "*纸制品*打印纸",
    "*保险服务*车辆商业保险",
    "*电信服务*通信费",
    "*汽油*92号车用汽油",
    "*计算机配套产品*电池",
    "*办公用品*文件夹",
    "*经纪代理服务*代理费",
    "*住宿服务*住宿费",
)
UNITS = ("元", "次", "件", "台", "升", "个", "箱", "")
TAX_RATES = ("13%", "9%", "6%", "3%", "1%")
CAPITAL_DIGITS = "零壹贰叁肆伍陆柒捌玖"
CAPITAL_UNITS = ("佰", "拾", "万", "仟", "佰", "拾", "圆")  # 佰 拾 万 for the ten-thousands
CIPHER_CHARS = "0123456789+-*/<>"  # the 密码区 of a paper invoice is a block of these
MIN_SELLER_CHARS = 10  # invoice seals are for companies: long names, set dense along the rim
MAX_SELLER_CHARS = 22
INVOICE_NUMBER_DIGITS = 8
INVOICE_CODE_DIGITS = (10, 12)  # paper invoices have a 10-digit code, e-invoices a 12-digit one
SURNAMES = (
    "王李张刘陈杨黄赵周吴徐孙马朱胡郭何林罗高郑梁谢宋唐许邓冯韩曹曾彭萧蔡潘田董袁于余叶蒋杜苏魏程吕丁沈任姚卢"
)
GIVEN_NAMES = "伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂英华文辉鹏飞玲燕红建国志宇晓晨蓉敬"
BANKS = ("中国工商银行", "中国建设银行", "中国银行", "中国农业银行", "招商银行", "交通银行", "兴业银行")
ROAD_SUFFIXES = ("路", "大道", "街", "南路", "北路")
ACCOUNT_DIGITS = (16, 19)
PHONE_DIGITS = 8
AREA_CODE_DIGITS = 2  # after the leading 0, e.g. 028
HOUSE_NUMBERS = (1, 999)
YEARS = (2015, 2025)
DAYS = (1, 29)  # every month has them
AMOUNT_CENTS = (100, 9_999_999)  # 1 yuan to about 100 000 yuan
NAME_TRIES = 100


def _pick(rng: np.random.Generator, options: tuple[str, ...]) -> str:
    return options[int(rng.integers(len(options)))]


def digits(rng: np.random.Generator, count: int) -> str:
    """`count` random decimal digits."""
    return "".join(str(int(d)) for d in rng.integers(0, 10, count))


def issuer(rng: np.random.Generator) -> str:
    """The province or city an invoice is issued in, e.g. 四川 or 深圳."""
    return _pick(rng, PROVINCES + CITY_ISSUERS)


def supervision_lines(rng: np.random.Generator, place: str) -> tuple[str, str]:
    """(middle line, bottom-arc line) of a 监制章 issued in `place`.

    The old design has the province in the middle and 国家税务总局监制 along the bottom arc;
    the new one has 国家税务总局 in the middle over the local bureau, e.g. 深圳市税务局.
    """
    if rng.random() < NEW_STYLE_PROBABILITY:
        city = place in CITY_ISSUERS or place in MUNICIPALITIES
        return TAX_ADMINISTRATION, place + ("市" if city else "省") + "税务局"
    return place, SUPERVISION_BOTTOM


def spaced(text: str, gaps: int) -> str:
    """`text` with `gaps` ideographic spaces between characters, as the 监制章 sets its province."""
    return ("\u3000" * gaps).join(text)


def seller(rng: np.random.Generator) -> str:
    """A company name long enough for an invoice seal (10 to 22 characters)."""
    for _ in range(NAME_TRIES):
        name = vocab.organisation_name(rng, MAX_SELLER_CHARS)
        if len(name) >= MIN_SELLER_CHARS:
            return name
    return "成都捷运达物流有限公司"


def title(rng: np.random.Generator, place: str, electronic: bool) -> str:
    """An invoice title, e.g. 四川增值税专用发票."""
    kinds = TITLES[2:] if electronic else TITLES[:2]
    return place + _pick(rng, kinds)


def copy_name(rng: np.random.Generator) -> str:
    """Which copy of a paper invoice this is, e.g. 发 票 联."""
    return _pick(rng, COPY_NAMES)


def goods(rng: np.random.Generator) -> tuple[str, str, str]:
    """(item, unit, tax rate) of one invoice line."""
    return _pick(rng, GOODS), _pick(rng, UNITS), _pick(rng, TAX_RATES)


def amount(rng: np.random.Generator) -> float:
    """A price in yuan, with cents."""
    return float(rng.integers(*AMOUNT_CENTS)) / 100.0


def capital_amount(value: float) -> str:
    """A plausible amount in capital numerals, e.g. 伍仟壹佰玖拾陆圆贰角玖分 (zeros skipped)."""
    whole, cents = int(value), round(value * 100) % 100
    text = ""
    for digit, unit in zip(
        f"{whole:0{len(CAPITAL_UNITS)}d}"[-len(CAPITAL_UNITS) :], CAPITAL_UNITS, strict=True
    ):
        text += CAPITAL_DIGITS[int(digit)] + unit if digit != "0" else ""
    text = text or "零圆"
    if cents == 0:
        return text.rstrip("圆") + "圆整"
    return text + CAPITAL_DIGITS[cents // 10] + "角" + CAPITAL_DIGITS[cents % 10] + "分"


def cipher_line(rng: np.random.Generator, length: int) -> str:
    """A line of the 密码区 block."""
    return "".join(CIPHER_CHARS[int(i)] for i in rng.integers(0, len(CIPHER_CHARS), length))


def invoice_code(rng: np.random.Generator, electronic: bool) -> str:
    """The invoice code (发票代码)."""
    return digits(rng, INVOICE_CODE_DIGITS[1] if electronic else INVOICE_CODE_DIGITS[0])


def invoice_number(rng: np.random.Generator) -> str:
    """The invoice number (发票号码)."""
    return digits(rng, INVOICE_NUMBER_DIGITS)


def person(rng: np.random.Generator) -> str:
    """A two- or three-character personal name."""
    given = "".join(GIVEN_NAMES[int(i)] for i in rng.integers(0, len(GIVEN_NAMES), int(rng.integers(1, 3))))
    return SURNAMES[int(rng.integers(len(SURNAMES)))] + given


def address(rng: np.random.Generator) -> str:
    """A street address and telephone number."""
    road = _pick(rng, vocab.TRADE_NAMES) + _pick(rng, ROAD_SUFFIXES)
    phone = f"0{digits(rng, AREA_CODE_DIGITS)}-{digits(rng, PHONE_DIGITS)}"
    return f"{_pick(rng, vocab.CITIES)}市{road}{int(rng.integers(*HOUSE_NUMBERS))}号 {phone}"


def bank_account(rng: np.random.Generator) -> str:
    """A bank branch and account number."""
    branch = _pick(rng, BANKS) + _pick(rng, vocab.CITIES) + "分行"
    return branch + " " + digits(rng, int(rng.integers(ACCOUNT_DIGITS[0], ACCOUNT_DIGITS[1] + 1)))


def date(rng: np.random.Generator) -> str:
    """An issue date, e.g. 2018年07月04日."""
    year, month, day = rng.integers(*YEARS), rng.integers(1, 13), rng.integers(*DAYS)
    return f"{year}年{month:02d}月{day:02d}日"
