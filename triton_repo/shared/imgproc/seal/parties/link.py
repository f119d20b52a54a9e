"""Which party each seal is: the probability that a seal is a party's, from how well the
seal's frames support the party's printed name (scored as an expected name is, by the caller:
`trust.name_scores`), from its rim reading a part of that name, and, for an invoice's parties,
from the seal's tax ID against the printed one; then the one party a seal is linked to, where
one is clearly it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..codes import passes_checks
from ..records import Box, Party, PartyLink
from .layout import centred_in, near_seal
from .names import NAME_MARKS, OFFICE_WORDS, SHORT_FORMS
from .params import DEFAULT_PARTIES, PartiesParams


@dataclass(frozen=True)
class SealSays:
    """What a seal says that a party is checked on: its rim as read (normalized), the
    probability the rim reads exactly, and its codes."""

    rim: str
    rim_score: float
    codes: tuple[str, ...]


def tax_id_agrees(printed: str | None, codes: Sequence[str]) -> bool | None:
    """True where a seal's code is the printed tax ID; False where the seal carries a tax ID
    that passes its checks and the printed one passes too but they differ (two true IDs,
    two organisations); None where nothing tells (no printed ID, no code of the kind, or one
    read wrong: it fails its checks)."""
    if printed is None:
        return None
    if printed in codes:
        return True
    rivals = [code for code in codes if len(code) == len(printed) and passes_checks(code)]
    return False if rivals and passes_checks(printed) else None


def part_edits(short: str, long: str) -> int:
    """The fewest characters changed, put in or left out to make `short` a run of `long` (an
    edit distance free before and after the run)."""
    row = [0] * (len(long) + 1)  # reaching each place of `long` with nothing of `short` costs 0
    for i, char in enumerate(short, 1):
        above, row[0] = row[0], i
        for j, other in enumerate(long, 1):
            above, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, above + (char != other))
    return min(row)


def _bare(text: str) -> str:
    """A name without the marks it may carry (“中国软件杯”): a seal's rim leaves them out."""
    return "".join(char for char in text if char not in NAME_MARKS)


def reads_part(rim: str, name: str, params: PartiesParams = DEFAULT_PARTIES) -> bool:
    """Whether a seal's rim and a printed name are one within the other, but for a share of
    the shorter's characters (the page's reader misreads a name a seal is stamped over: 人资源
    for 人力资源; a seal leaves out 组委会)."""
    short, long = sorted((_bare(rim), _bare(name)), key=len)
    if len(short) < params.min_part_chars:
        return False
    return part_edits(short, long) <= int(params.part_edits * len(short))


def shared_chars(rim: str, name: str, misread_end: bool = False) -> int:
    """The most characters a rim and a name share in order, the rim's last among them (the
    word that says what kind of organisation it is: 厅, 学会, 公司); 0 where the name lacks it,
    or, where the name may have its end `misread_end` (read unsurely under the seal's ink:
    协金 for 协会), those the rim's others share with the name before its last character."""
    if not rim:
        return 0
    row = [0] * (len(name) + 1)  # row[j]: the most shared by the rim so far and name[:j]
    for char in rim[:-1]:
        diagonal = 0
        for j, other in enumerate(name, 1):
            diagonal, row[j] = row[j], max(row[j], row[j - 1], diagonal + 1 if char == other else 0)
    shared = max((row[j] + 1 for j, other in enumerate(name) if other == rim[-1]), default=0)
    return row[len(name) - 1] if shared == 0 and misread_end and name else shared


def _without_office(name: str) -> str:
    """A printed name without the office word that signs for its organisation (a contest's
    组委会, an association's 秘书处): the organisation's seal leaves it out."""
    office = next((word for word in OFFICE_WORDS if name.endswith(word)), "")
    return name[: len(name) - len(office)]


def mostly_reads(rim: str, party: Party, params: PartiesParams = DEFAULT_PARTIES) -> bool:
    """Whether a seal's rim and a party's name printed under the seal agree in most of their
    characters, in order, the rim's last among them (`shared_chars`): the page's reader breaks
    a name a seal is stamped over (市国商亚计学会 for 中国商业统计学会, 同方知网（北京）支木限司
    for 同方知网（北京）技术有限公司), and reads names printed side by side under two seals as
    one line (山东省发辰·文革委员会山东省工印信息化厅...); an office's word after the name is
    not the seal's (`_without_office`). A line read surely is taken as
    printed: it may lack what the ink covered, but not hold more than `sure_extra` characters
    the rim lacks (上海滴滴畅行科技有限公司 printed clearly under a seal of 上海某某科技有限公司
    is another company's name, however much of it they share). A line read unsurely may have
    its last word misread too (中国青军志愿者协金邮书处 under a seal of 中国青年志愿者协会): its
    last character may stand for the rim's."""
    rim, name = _bare(rim), _without_office(_bare(party.text))
    shared = shared_chars(rim, name, misread_end=party.confidence < params.sure_line)
    if party.confidence >= params.sure_line and len(name) - shared > params.sure_extra:
        return False
    return shared >= params.min_part_chars and shared >= params.agree_share * min(len(rim), len(name))


def spelled_out(name: str) -> str:
    """A printed name with its short forms spelled out as its seal says them (共青团 ->
    中国共产主义青年团: `SHORT_FORMS`); the name itself where it has none."""
    for short, full in SHORT_FORMS:
        if full not in name:
            name = name.replace(short, full)
    return name


def _agrees(seal: SealSays, party: Party, under: bool, params: PartiesParams) -> bool:
    """Whether a seal's rim reads a part of the party's name (`reads_part`) or, for a name
    printed under the seal, mostly reads it (`mostly_reads`), as printed or spelled out."""
    named = [party, replace(party, text=spelled_out(party.text))]
    return any(
        reads_part(seal.rim, one.text, params) or (under and mostly_reads(seal.rim, one, params))
        for one in named
    )


def party_scores(
    name_scores: Sequence[float],
    seal: SealSays,
    parties: Sequence[Party],
    found_score: float,
    params: PartiesParams = DEFAULT_PARTIES,
    under: Sequence[bool] | None = None,
) -> tuple[list[float], list[bool]]:
    """The probability that the seal is each party's: its name's score (`name_scores`, in
    party order), at least the rim's score where the rim and the name are one within the
    other (`reads_part`) or, for a party printed `under` the seal, where they mostly agree
    (`mostly_reads`), and for a party printed under it at least `agree_score` then,
    raised by an agreeing tax ID and lowered by a differing one; and whether the seal says the
    party's whole name (its name's score or its tax ID says so), not only a part of it."""
    scores, full = [], []
    for k, (score, party) in enumerate(zip(name_scores, parties, strict=True)):
        whole = score >= found_score
        if _agrees(seal, party, under is not None and under[k], params):
            score = max(score, seal.rim_score)
            if under is not None and under[k]:  # two readings of one name, the seal's and the page's
                score = max(score, params.agree_score)
        agrees = tax_id_agrees(party.tax_id, seal.codes)
        if agrees is not None:
            score = max(score, params.tax_id_score) if agrees else min(score, 1 - params.tax_id_score)
            whole = agrees
        scores.append(score)
        full.append(whole)
    return scores, full


def linked(
    scores: Sequence[float],
    full: Sequence[bool],
    parties: Sequence[Party],
    seal: Box,
    found_score: float,
    params: PartiesParams = DEFAULT_PARTIES,
) -> PartyLink | None:
    """The party a seal (at `seal`) is linked to: of those it is at least `found_score` likely
    to be, the ones whose whole name the seal supports (`full`) before those whose name it
    only reads a part of; of several within `tie_margin`, the only one printed near the seal
    (a seal is stamped over its issuer's name) or, of several near it, the only one whose
    centre lies inside it (a row of seals over a row of names: 河北省科学技术市 under its seal,
    海北省科学技术协会 under the next, reaching under this one), else the longest name where the others lie
    within it (中国工商银行 inside 中国工商银行股份有限公司), else none (a seal that says 中南大学
    between two of its offices)."""
    likely = [i for i, score in enumerate(scores) if score >= found_score]
    best = [i for i in likely if full[i]] or likely
    if not best:
        return None
    top = max(scores[i] for i in best)
    close = [i for i in best if scores[i] >= top - params.tie_margin]
    chosen = max(close, key=lambda i: (len(parties[i].text), scores[i]))
    if any(parties[i].text not in parties[chosen].text for i in close):
        near = [i for i in close if near_seal(parties[i].box, [seal], params)]
        if len(near) > 1:  # names printed side by side under a row of seals: the one under it
            near = [i for i in near if centred_in(parties[i].box, seal)]
        if len(near) != 1:
            return None
        chosen = near[0]
    return PartyLink(chosen, parties[chosen].role, scores[chosen])
