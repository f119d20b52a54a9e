"""The parties a page names, from its lines (text normalized, boxes in page pixels) and where
its seals lie: by label (销售方 and 名称 on an invoice, 甲方 on a contract, with the value beside
or under its label where the form prints them apart), and by layout (an organisation name near a
seal, or in the page's head or foot). The kind of document is told from its title."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from imgproc.text.lines import TextLine

from ..codes import passes_checks
from ..records import Box, Party
from .layout import (
    around,
    downwards,
    head_or_foot,
    in_head,
    left_of_row,
    near_seal,
    on_seal_ring,
    one_after_other,
    row_overlap,
    under,
    under_seal,
    value_line,
)
from .names import (
    ASIDE,
    CERTIFICATE_TITLES,
    CONTRACT_TITLES,
    DATE_CHARS,
    DOCUMENT_NAMES,
    INVOICE_ROLES,
    INVOICE_TITLES,
    LABEL_TAIL,
    NAME_LABELS,
    NAME_RUN,
    NOT_NAMES,
    OPEN_ASIDE,
    ORG_ENDINGS,
    ROLE_LABELS,
    SEAL_ASIDE,
    TAX_ID,
    TAX_LABELS,
    TITLE_CHARS,
)
from .params import DEFAULT_PARTIES, PartiesParams


@dataclass(frozen=True)
class Label:
    """A line that starts with a label: the role it names (None for an invoice's bare 名称,
    whose role its block says), whether it labels a tax ID rather than a name, the value the
    line itself holds after it ('' where the value is printed apart), and whether a colon or
    名称 closed the label (then any text is the value, not only an organisation's name)."""

    role: str | None
    tax: bool
    value: str
    closed: bool


def document_kind(lines: Sequence[TextLine]) -> str:
    """ "invoice", "contract", "certificate" or "other", by the first title a short line holds
    (a contract's 甲方 and 乙方 labels make it one whatever its title)."""
    roles = {label.role for line in lines if (label := parse_label(line.text)) is not None}
    if {"party_a", "party_b"} <= roles:
        return "contract"
    for kind, titles in (
        ("invoice", INVOICE_TITLES),
        ("contract", CONTRACT_TITLES),
        ("certificate", CERTIFICATE_TITLES),
    ):
        if any(len(line.text) <= TITLE_CHARS and any(t in line.text for t in titles) for line in lines):
            return kind
    return "invoice" if {"seller", "buyer"} & roles else "other"


def _role_at_start(text: str) -> tuple[str | None, str]:
    """The role a label at the start of `text` names, and the text after it."""
    for role, labels in ROLE_LABELS:
        for label in labels:
            if text.startswith(label):
                return role, text[len(label) :]
    return None, text


def parse_label(text: str) -> Label | None:
    """The label `text` starts with (a role, 名称, a tax ID's), with what follows it; None for
    a line that starts with none."""
    role, rest = _role_at_start(text)
    tail = LABEL_TAIL.match(rest)
    closed = tail is not None and tail.group(0) != ""
    rest = rest[tail.end() :] if tail else rest
    for label in TAX_LABELS:
        if rest.startswith(label):
            return Label(role, True, rest[len(label) :].lstrip(":："), True)
    if role is None:
        name_label = next((label for label in NAME_LABELS if text.startswith(label)), None)
        if name_label is None:
            return None
        return Label(None, False, text[len(name_label) :].lstrip(":："), True)
    return Label(role, False, rest, closed)


def organisation(text: str, params: PartiesParams = DEFAULT_PARTIES, title: bool = False) -> str | None:
    """The organisation's name a text holds: a run that ends with an organisation's last word,
    or does before a date (上海市教育委员会 of 上海市教育委员会2019年5月), or, in a `title`,
    before the name of the document it issues (北京理工大学珠海学院 of 北京理工大学珠海学院学生
    成绩单); None where none does (上海市大学生节能减排 is no 上海市大学)."""
    runs: list[str] = NAME_RUN.findall(text)
    for run in runs:
        run = run.lstrip(DATE_CHARS)
        ends = [run.rfind(word) + len(word) for word in ORG_ENDINGS if word in run]
        end = max(ends, default=0)
        name, rest = run[:end], run[end:]
        short = len(rest) <= TITLE_CHARS // 2
        titled = title and short and rest.endswith(DOCUMENT_NAMES) and not _field(rest)
        if rest and not rest.startswith(tuple(DATE_CHARS)) and not titled:
            continue
        long_enough = params.min_name_chars <= len(name) <= params.max_name_chars
        if long_enough and name not in ORG_ENDINGS and not _field(name):
            return name
    return None


def under_seal_text(text: str, params: PartiesParams = DEFAULT_PARTIES) -> str | None:
    """The longest run of a line printed under a seal, where it may be a name: the page's
    reader misreads what red ink covers (教赢部考试中 for 教育部考试中心), so such a line is
    a party by its place, and its seal is linked to it where the seal's rim reads it but for
    a few characters (`link.reads_part`)."""
    runs = sorted((run for run in NAME_RUN.findall(text) if sum(c.isdigit() for c in run) < 2), key=len)
    name = runs[-1] if runs else ""
    return name if params.min_name_chars <= len(name) <= params.max_name_chars and not _field(name) else None


def _field(text: str) -> bool:
    """Whether a text is a field's label or a form's words rather than a name."""
    return any(word in text for word in NOT_NAMES)


def labelled_value(label: Label, params: PartiesParams = DEFAULT_PARTIES) -> str | None:
    """The name a label's own line gives: an organisation's name, or, after a closed label,
    the line's first run whatever it is (a shop's or a person's name on an invoice)."""
    value = label.value.split("(以下", 1)[0].split("（以下", 1)[0]
    name = organisation(value, params)
    if name is not None or not label.closed:
        return name
    runs: list[str] = NAME_RUN.findall(value)
    bare = OPEN_ASIDE.sub("", ASIDE.sub("", runs[0])) if runs else ""  # 销售方（章）: an aside, no name
    return runs[0] if len(bare) >= 2 and not _field(runs[0]) else None


def is_tax_id(code: str) -> bool:
    """Whether a code is a tax ID by its form: one that passes its check characters, or a tax
    number of 15 or 20 characters (a bank account's 19 digits is none)."""
    return passes_checks(code) or len(code) in (15, 20)


def _tax_id(text: str) -> str | None:
    found = TAX_ID.search(text)
    return found.group(0) if found else None


@dataclass(frozen=True)
class Named:
    """A name a label gives (or an invoice's layout: a name over a tax ID), before its role is
    settled: the name's box, its label's, the lines it takes, and the tax ID printed with it."""

    role: str | None
    text: str
    box: Box
    label: Box
    lines: tuple[int, ...]
    source: str = "label"
    tax_id: str | None = None


def _labelled(lines: Sequence[TextLine], labels: dict[int, Label], params: PartiesParams) -> list[Named]:
    """Every name a label gives, on its own line or on the value's line beside or under it."""
    found = []
    for i, label in labels.items():
        if label.tax:
            continue
        name = labelled_value(label, params)
        if name is not None:
            found.append(Named(label.role, name, lines[i].box, lines[i].box, (i,)))
            continue
        if label.value.strip(":：") or downwards(lines[i]):
            # The label's line holds something that is not a name (甲方代表：...), or the label
            # is an invoice block's role printed down its left (销售方): the block's own rows
            # (名称, its address, its bank) lie beside it, and its name is the 名称 row's.
            continue
        j = value_line(i, lines, set(labels), params)
        value = None if j is None else labelled_value(Label(label.role, False, lines[j].text, True), params)
        if j is not None and value is not None:
            found.append(Named(label.role, value, lines[j].box, lines[i].box, (i, j)))
    return found


def _role_columns(lines: Sequence[TextLine]) -> list[tuple[str, Box]]:
    """Lines that are an invoice role's label alone (购买方, 销售方信息, or its first character
    where the column is read a character at a time): a block's role, printed at its left."""
    found = []
    for line in lines:
        role, rest = _role_at_start(line.text)
        if role in INVOICE_ROLES and len(rest) <= 2:
            found.append((role, line.box))
        elif line.text[:1] in ("购", "销") and len(line.text) <= 2:
            found.append(("buyer" if line.text[0] == "购" else "seller", line.box))
    return found


def _over_tax_ids(
    lines: Sequence[TextLine], used: set[int], named: list[Named], params: PartiesParams
) -> list[Named]:
    """An invoice's parties where no label was read: an organisation's name with a tax ID
    printed under it (a form's block: 名称 over 纳税人识别号, the labels faint or left out)."""
    found: list[Named] = []
    known = {item.text for item in named}
    for i, line in enumerate(lines):
        code = _tax_id(line.text)
        if code is None or not is_tax_id(code) or any(code == item.tax_id for item in found):
            continue
        over = [
            (distance, j)
            for j, above in enumerate(lines)
            if j not in used and j != i and (distance := under(above.box, line.box, params)) is not None
        ]
        name = None if not over else organisation(lines[min(over)[1]].text, params)
        if name is not None and name not in known:
            j = min(over)[1]
            found.append(Named(None, name, lines[j].box, lines[j].box, (j, i), "layout", code))
    return found


def _before(a: Box, b: Box, params: PartiesParams) -> bool:
    """Whether a form's block at `a` comes before one at `b`: left of it on one row, else above."""
    return a[0] < b[0] if row_overlap(a, b) >= params.same_row else a[1] < b[1]


def _with_roles(named: list[Named], lines: Sequence[TextLine], params: PartiesParams) -> list[Named]:
    """Invoice names whose label said no role (名称) given their block's: the role column at
    their row's left, else their order (the buyer's block comes first, above or left of the
    seller's, on every Chinese invoice)."""
    columns = _role_columns(lines)
    settled = []
    for item in named:
        if item.role is None:
            roles = [role for role, box in columns if left_of_row(item.label, box)]
            item = replace(item, role=roles[0] if roles else None)
        settled.append(item)
    open_ = [i for i, item in enumerate(settled) if item.role is None]
    free = [role for role in INVOICE_ROLES if role not in {item.role for item in settled}]
    if len(open_) == 2 and len(free) == 2:
        if not _before(settled[open_[0]].label, settled[open_[1]].label, params):
            open_.reverse()
        for i, role in zip(open_, ("buyer", "seller"), strict=True):
            settled[i] = replace(settled[i], role=role)
    elif len(open_) == 1 and len(free) == 1:
        settled[open_[0]] = replace(settled[open_[0]], role=free[0])
    return settled


def _tax_ids(
    lines: Sequence[TextLine], labels: dict[int, Label], named: list[Named], params: PartiesParams
) -> dict[int, str]:
    """Each printed tax ID, by the index in `named` of the party it is printed for: its label's
    role, else the nearest name above it in its column."""
    found: dict[int, str] = {}
    for i, label in labels.items():
        if not label.tax:
            continue
        j = None if _tax_id(label.value) else value_line(i, lines, set(labels), params)
        code = _tax_id(label.value if j is None else lines[j].text)
        owner = _tax_owner(label.role, lines[i].box, named)
        if code is not None and owner is not None:
            found.setdefault(owner, code)
    return found


def _tax_owner(role: str | None, box: Box, named: list[Named]) -> int | None:
    """The party a tax ID printed at `box` is for: the one of its label's role, else the nearest
    invoice party above it whose label shares its column."""
    if role is not None:
        return next((i for i, item in enumerate(named) if item.role == role), None)
    above = [
        (box[1] - item.label[3], i)
        for i, item in enumerate(named)
        if item.role in INVOICE_ROLES
        and item.label[1] <= box[1]
        and min(item.label[2], box[2]) > max(item.label[0], box[0])
    ]
    return min(above)[1] if above else None


def _by_layout(
    lines: Sequence[TextLine],
    used: set[int],
    seals: Sequence[Box],
    page_height: int,
    role: str,
    params: PartiesParams,
) -> list[Party]:
    """Organisation names printed near a seal or in the page's head or foot, and what may be
    one under a seal (`under_seal_text`)."""
    found = []
    for i, line in enumerate(lines):
        text = SEAL_ASIDE.sub("", line.text)
        if i in used or _field(text.split(":", 1)[0]) or on_seal_ring(line.box, seals, params):
            continue
        name = organisation(text, params, title=in_head(line.box, page_height, params))
        if name is None and under_seal(line.box, seals):
            name = under_seal_text(text, params)
        placed = near_seal(line.box, seals, params) or head_or_foot(line.box, page_height, params)
        if name is not None and placed:
            found.append(Party(role, name, line.box, "layout", confidence=line.score))
    return found


def _rims_printed(
    lines: Sequence[TextLine],
    taken: Sequence[Box],
    seals: Sequence[Box],
    rims: Sequence[str],
    rim_scores: Sequence[float],
    role: str,
    params: PartiesParams,
) -> list[Party]:
    """A seal's rim printed whole near it, on a line that gave no party and is mostly that name
    (not a sentence naming it): a name with no organisation's last word (全国冶金焦化信息网
    beside its seal) that the seal and the page read alike. The two readings agreeing is the
    evidence, however unsurely the rim alone was read (that one at 0.47). A rim read surely
    (`rim_anywhere`) is a party wherever the page prints it, in a sentence too (国家知识产权局
    依照……: a patent certificate's issuer)."""
    found = []
    for seal, rim, score in zip(seals, rims, rim_scores, strict=True):
        if len(rim) < params.min_name_chars:
            continue
        sure = score >= params.rim_anywhere
        for line in lines:
            named = rim in line.text and (sure or 2 * len(rim) >= len(line.text))  # not a sentence
            placed = sure or near_seal(line.box, [seal], params)
            printed = named and line.box not in taken and placed
            if printed and not on_seal_ring(line.box, seals, params):
                found.append(Party(role, rim, line.box, "rim", confidence=line.score))
    return found


def _rims_joined(
    parties: Sequence[Party], seals: Sequence[Box], rims: Sequence[str], role: str, params: PartiesParams
) -> list[Party]:
    """A seal's rim that reads two parties' names one after the other, printed one after the
    other near it (山东省教育厅 over 关心下一代工作委员会, 广西科技大学 beside 启迪数字学院): an
    organisation and its unit, set as two names, which the seal names whole. The rim read as
    exactly both is the evidence that they are one name here."""
    found = []
    for seal, rim in zip(seals, rims, strict=True):
        for a in parties:
            for b in parties:
                if a is b or a.text + b.text != rim or not one_after_other(a.box, b.box, params):
                    continue
                box = around(a.box, b.box)
                if near_seal(box, [seal], params):
                    found.append(Party(role, rim, box, "rim", confidence=min(a.confidence, b.confidence)))
    return found


def find_parties(
    lines: Sequence[TextLine],
    seals: Sequence[Box],
    page_height: int,
    kind: str,
    params: PartiesParams = DEFAULT_PARTIES,
    rims: Sequence[str] = (),
    rim_scores: Sequence[float] = (),
) -> list[Party]:
    """The parties a page of `kind` names (its lines' text normalized): those its labels give,
    then the organisations its layout gives (an issuer of a certificate, else a party named),
    then the seals' `rims` (one per seal, as read) printed near them, each name once."""
    labels = {i: label for i, line in enumerate(lines) if (label := parse_label(line.text)) is not None}
    named = _labelled(lines, labels, params)
    if kind == "invoice":
        used = set(labels) | {i for item in named for i in item.lines}
        unread = len({item.role for item in named} & set(INVOICE_ROLES)) < len(INVOICE_ROLES)
        extra = _over_tax_ids(lines, used, named, params) if unread else []
        named = _with_roles(named + extra, lines, params)
    else:  # an invoice's bare 名称 is a product's name elsewhere (a contract's goods)
        named = [item for item in named if item.role is not None]
    taxes = _tax_ids(lines, labels, named, params)
    parties = [
        Party(
            item.role or "named",
            item.text,
            item.box,
            item.source,
            taxes.get(i, item.tax_id),
            lines[item.lines[-1]].score,  # the line the name was read from
        )
        for i, item in enumerate(named)
    ]
    used = set(labels) | {i for item in named for i in item.lines}
    layout_role = "issuer" if kind == "certificate" else "named"
    parties += _by_layout(lines, used, seals, page_height, layout_role, params)
    taken = [lines[i].box for i in used] + [party.box for party in parties]
    rims = rims or [""] * len(seals)
    rim_scores = rim_scores or [0.0] * len(seals)
    parties += _rims_printed(lines, taken, seals, rims, rim_scores, layout_role, params)
    parties += _rims_joined(parties, seals, rims, layout_role, params)
    return _once(parties)


def _once(parties: list[Party]) -> list[Party]:
    """Each name once: the first party that gives it (a label's before the layout's), with a
    tax ID any of them was given (a role column and a 名称 label give one name twice)."""
    kept: dict[str, Party] = {}
    for party in parties:
        first = kept.setdefault(party.text, party)
        if first.tax_id is None and party.tax_id is not None:
            kept[party.text] = replace(first, tax_id=party.tax_id)
    return list(kept.values())
