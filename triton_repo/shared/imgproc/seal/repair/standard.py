"""Texts a whole class of seals carries word for word, restored where partly read.

Every invoice supervision seal (监制章, printed on every Chinese invoice since 1993) reads
全国统一发票监制章 on its rim and 国家税务总局(监制) below; the invoice's title, printed over
it, hides some of them (`standard_text`). A company's special seals carry the purpose they
were registered for (合同专用章, 财务专用章, ...: `purpose_line`). An oval whose rim went
unread is a supervision seal where its lower line says so, or where the invoice's title or
the tax bureau's line is read around it and no purpose line inside (`supervision_rim`).
"""

from __future__ import annotations

from imgproc.text.edit import levenshtein
from imgproc.text.lexicon import is_chinese

from ..records import Line, Shape
from ..words import STANDARD_RIMS
from .params import DEFAULT_REPAIR, RepairParams

# Inner lines: the supervision seal's, and the purpose line of every invoice seal.
STANDARD_LINES = ("国家税务总局监制", "国家税务总局", "发票专用章")
# The purposes a company's special seals (专用章) are made for, as registered with the police.
PURPOSE_LINES = tuple(
    f"{purpose}专用章"
    for purpose in (
        "发票 合同 财务 业务 人事 行政 采购 销售 质检 技术 工程 报关 检验 检测 资料 审计 物资 "
        "结算 收款 付款 招标 投标 仓库 党务 工会 检验报告 试验报告 检测报告"
    ).split()
)
# The lines inside that only the supervision seal carries: an oval seal with one of them is
# a 监制章, whose rim is then its standard text however much of it the title print hid.
SUPERVISION_LINES = frozenset({"国家税务总局监制", "国家税务总局"})
# What is read in and around a supervision seal even where the invoice's title, printed over
# it, hides its rim: pieces of the title (增值税专用发票, 增值税普通发票: 增值, read where 税
# under the seal is not, and as its 值 often reads 直, the pieces after it), of the copy's
# name printed beside it (发票联, 抵扣联, 记账联) and of the tax bureau's line. A company's
# invoice seal (发票专用章, stamped by 销售方（章）) holds none of them; 税 alone is not one:
# the table's 税额 and 税率. The title is read on past the seal (`CutParams.cue_reach`).
SUPERVISION_CUES = (
    "增值", "值税", "税专用", "税普通", "专用发", "用发票", "普通发", "通发票",
    "发票联", "抵扣联", "记账联",
    "税务", "监制",
)  # fmt: skip


def shared_in_order(text: str, other: str) -> int:
    """How many characters the two strings share in order (longest common subsequence)."""
    row = [0] * (len(other) + 1)
    for char in text:
        previous = 0
        for j, mine in enumerate(other):
            previous, row[j + 1] = row[j + 1], previous + 1 if char == mine else max(row[j + 1], row[j])
    return row[-1]


def standard_text(
    text: str,
    standards: tuple[str, ...] = STANDARD_RIMS,
    share: float = DEFAULT_REPAIR.standard_shared,
    longer: float = DEFAULT_REPAIR.standard_longer,
) -> str:
    """The standard text `text` is a partial misreading of (it holds `share` of its characters
    in order and is at most `longer` times as long), the one sharing most, or `text` itself."""
    if text in standards or not text:
        return text
    close = [s for s in standards if len(text) <= longer * len(s)]
    best = max(close, key=lambda s: shared_in_order(text, s) / len(s), default=None)
    if best is not None and shared_in_order(text, best) >= share * len(best):
        return best
    return text


def purpose_line(
    text: str, purposes: tuple[str, ...] = PURPOSE_LINES, params: RepairParams = DEFAULT_REPAIR
) -> str:
    """The one purpose (`PURPOSE_LINES`) that `text` is a one-edit misreading of, else the one
    that holds all but at most one of its characters in order and most of its own among them
    (`purpose_shared`: 发票专方, 财务章, 采购专 of a line split in two), or `text`."""
    if text in purposes or len(text) < params.min_purpose_chars - 1:
        return text
    close = [purpose for purpose in purposes if levenshtein(text, purpose) == 1]
    if len(text) >= params.min_purpose_chars and close:
        return close[0] if len(close) == 1 else text
    shared = {purpose: shared_in_order(text, purpose) for purpose in purposes}
    most = max(shared.values())
    best = [purpose for purpose, count in shared.items() if count == most]
    held = most >= len(text) - 1 and most >= params.purpose_shared * len(best[0])
    return best[0] if len(best) == 1 and held else text


def may_be_supervision(shape: Shape, rim: str) -> bool:
    """Whether a seal could be an invoice supervision seal whose rim went unread: an oval whose
    rim reads as no name (no 公司, and few Chinese characters: the invoice's title hides most
    of it, and what shows through reads as marks and letters: 和pN,  W影人)."""
    chinese = sum(is_chinese(char) for char in rim)
    return shape.has_axes and "公司" not in rim and chinese < len(STANDARD_RIMS[0]) - 1


def supervision_rim(
    shape: Shape,
    rim: str,
    inner: list[Line],
    around: list[Line] | None = None,
    params: RepairParams = DEFAULT_REPAIR,
) -> str:
    """The rim of an invoice supervision seal is 全国统一发票监制章: an oval with a 国家税务总局
    line inside or read as its rim (the lower line, where the title hides the rim above it),
    or one whose rim went unread (`may_be_supervision`) with the invoice's title or the tax
    bureau's line read in and around it (`around`: `SUPERVISION_CUES`), and no purpose line
    inside (a company's 发票专用章 near the title). Any other rim stays as read."""
    if not shape.has_axes:
        return rim
    lower = inner_standard(rim, params)  # as `sorted_lines` does inner ones
    if lower in SUPERVISION_LINES or any(text in SUPERVISION_LINES for text, _ in inner):
        return STANDARD_RIMS[0]
    cued = any(cue in text for text, _ in around or [] for cue in SUPERVISION_CUES)
    purpose = any(text in PURPOSE_LINES for text, _ in inner)
    return STANDARD_RIMS[0] if cued and not purpose and may_be_supervision(shape, rim) else rim


def inner_standard(text: str, params: RepairParams = DEFAULT_REPAIR) -> str:
    """An inner line as the standard line it is a partial misreading of (`STANDARD_LINES`)."""
    return standard_text(text, STANDARD_LINES, params.line_shared, params.standard_longer)
