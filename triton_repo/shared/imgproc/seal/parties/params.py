"""The tunables of finding a page's parties and linking its seals to them (`parties`). Chosen
on the real seal corpus's tuning part (`python -m evaluation.seal.document`), never on its
held-out part."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PartiesParams:
    """Where a label's value lies, what counts as near a seal, and how sure a link must be."""

    # The page's lines are read with seal ink at least this saturated taken out (red and
    # magenta hues, `ink.without_ink`), so that the names printed under seals read: on the
    # tuning part's e-invoice of seals-dev (seal_101), the seal's ink lies at saturation 215
    # (median) and the form's brownish labels at 141 in the vermilion band, which stays.
    ink_out_saturation: int = 100
    # ...with the ink's edge this many pixels round it (its blurred, paler pink) taken out too:
    # on the tuning part's 220 seals stamped over their owner's printed name, the name read
    # exactly 71 times with the ink made plain white, 86 / 88 / 90 times with the ink made
    # grey by its brightest channel and an edge of 1 / 2 / 4 pixels.
    ink_out_halo: int = 2
    # A value is beside its label when the two lines share at least this share of the shorter
    # one's height (a form's row), and below it when its top lies within this many of the
    # label's heights under the label's foot (a form's column: 名 称 over its value).
    same_row: float = 0.5
    below_rows: float = 1.5
    # A value beside its label starts at most this many of the label's heights right of it
    # (further right is the next column of the form).
    beside_gap: float = 12.0
    # An organisation name printed within this many of a seal's diameters of it (gap between
    # the boxes) is a party of the page by its layout: an issuer signs under, over or beside
    # its seal.
    near_seal: float = 1.0
    # ...and so is one printed in the page's head or foot (this share of its height): a
    # letterhead, a receipt's bank, a certificate's issuer line under a seal left unfound. A
    # certificate scanned with its margins prints its issuer's letterhead lower: the copyright
    # office's software certificates (中华人民共和国国家版权局 over the title, the seal at the
    # foot) end it at 0.16 of the page. At 0.17 the tuning part linked 214 -> 217 of 303 found
    # owned seals, none more wrongly (0.2 the same); the held-out part 168 -> 169 of 243.
    head_share: float = 0.17
    foot_share: float = 0.25
    # A line whose centre lies inside a seal but farther than this from its centre (a share of
    # the seal's semi-axes) lies on the seal's ring: what the page's reader reads there is the
    # seal's own rim, not a party. Of the corpus tuning part's 113 owners printed under their
    # seals' boxes, 89 lie within 0.55, 12 on the ring and 12 outside it; the links the
    # ring's lines made were more often wrong than right (0.45: 8 fewer linked right; 0.7:
    # 1 more linked wrong).
    ring_core: float = 0.55
    # ...where the line lies inside the seal's box grown by this share of its size: a line
    # that runs out of it is print (校名：上海交通大学 beside the seal's centre; a name wider
    # than its seal). On the tuning part, 6 more owned seals linked and none more wrongly
    # (0: 1 fewer linked and 1 more wrongly; 0.2 and 0.3: 1 fewer linked).
    ring_margin: float = 0.1
    # A line printed under two or more seals side by side is cut between them at the end of
    # an organisation's name within this many characters of where its characters, evenly
    # spaced, would put the cut (`layout.split_at_seals`). On the tuning part 2 more owned
    # seals linked, none more wrongly (0, cut where the characters put it: 2 fewer than
    # without cutting; 2: none more; 5: as 3).
    split_reach: int = 3
    # Pieces of a name under a seal are joined (`layout.join_under_seals`): one right of another
    # on its row at most this many of its heights away (中华心 and 教育部 under a seal of
    # 中华人民共和国教育部, its middle lost under the seal's star, lie 2.7 heights apart), or on
    # the line under another, its top at most this many of the first's heights under its foot, their
    # heights within this ratio (a name set on two lines is set in one size; a date or a
    # signature under it is often smaller).
    join_gap: float = 3.0
    join_rows: float = 0.5
    join_heights: float = 1.25
    # An organisation name holds this many characters or more (公司 alone is a word of a
    # sentence; 中南大学 is a name), and at most this many (a longer run is a sentence).
    min_name_chars: int = 4
    max_name_chars: int = 40
    # A seal's rim and a party's printed name are one within the other (a rim 中南大学 under
    # 中南大学教务处; a printed 中国工商银行 under a rim 中国工商银行股份有限公司) when the
    # shorter holds at least this many characters; then the seal is the party's with the
    # probability that its rim reads exactly (`SealReading.rim_score`).
    min_part_chars: int = 4
    # ...or reads it but for this share of the shorter's characters (rounded down): the page's
    # reader misreads a name a seal is stamped over (人资源 for 人力资源), the seal's reader a
    # faded character, and a seal leaves out what its printed name adds (组委会).
    # At 0.25 a four-character piece of a line under a seal matched a rim with one change
    # (城学区办 a seal of 闵行区...教育委员会's); at 0.2 such a piece must match exactly.
    part_edits: float = 0.2
    # A name printed under a seal is the seal's where the two share at least this share of the
    # shorter's characters in order, the rim's last among them (`link.mostly_reads`): the print
    # under a seal is read broken.
    # On the tuning part, 11 more owned seals linked, none more wrongly (0.5: 1 more, 0.4: 2
    # more, 0.7: 2 fewer, 0.8: 8 fewer).
    agree_share: float = 0.6
    # ...but a line the page's reader read at least this surely (its characters' mean
    # probability) is read as printed: it may lack characters the ink covered, yet holds at
    # most this many the rim lacks (a clear name that differs is another organisation's). On
    # the tuning part this costs 2 owned seals whose printed name adds an office's word
    # (中国大学生服务外包创新创业大赛 over ...大赛组委会), read surely: the price of not
    # calling a company's seal another company's of like name.
    sure_line: float = 0.95
    sure_extra: int = 1
    # A name printed under a seal that its rim reads a part of (`part_edits`) or mostly reads
    # is the seal's with at least this probability, however unsurely the rim was read
    # (重庆江区工会 at 0.40 over 重庆市誉江区总工会): two readings of one name, the seal's and
    # the page's, agree. Of the tuning part's 65 such pairs 64 were the owner's (the other is
    # its owner's name read in part, its line sharing 0.43 of the labelled box), all 8 with a
    # rim read under 0.5 among them: this is the lower end of the 95% interval of 8 of 8 (6
    # more owned seals linked, none more wrongly).
    agree_score: float = 0.68
    # Two parties whose names are neither one within the other score within this much for one
    # seal: the seal is linked to neither (a seal that says 中南大学 between two of its offices).
    tie_margin: float = 0.05
    # An invoice seal's tax ID read exactly as the seller's printed one, both passing their
    # check characters, makes the seal the seller's with at least this probability: a wrong
    # 18-character code passing the checks by chance is under one in 31 (GB 32100-2015), and
    # the same as one printed beside it far rarer.
    tax_id_score: float = 0.99
    # An invoice's seal that is not the seller's is called another's (seller_seal_mismatch) only
    # where its rim reads surely: the probability that it reads exactly (`trust`) at least
    # this; else it may be the seller's seal misread (seller_seal_unread). On the tuning part
    # the seller's own seal was read 酒吧崇川区 at 0.36.
    sure_rim: float = 0.5
    # ...or where the seller's name is as good as absent from its frames: the probability that
    # the seal is the seller's (its name scored on the seal as an expected name is, `link.
    # party_scores`) under this. The rim score says whether a rim reads exactly, not whether it
    # is another's: a seal of another seller read with a character wrong (万发 for 万丰) is not
    # exact, yet plainly not the seller's. Under the tuning part's one seller's seal left
    # unlinked (崇川区梦回酒吧's, read 酒吧崇川区 at 0.09), whose seller's name scores 0.00029
    # since a name's costliest character counts twice (`TrustParams.name_worst`; 0.0073 before,
    # with this at 0.001): 1.75 under it in log odds (2.0 before), and above every name scored
    # by its bound alone (`TrustParams.name_skip`: under 4.6e-5), so those are told as the
    # exact scores would be.
    not_seller: float = 5e-5
    # A seal's rim read this surely (the probability that it reads exactly: 0.9 is the
    # served score's mark, 0.95 exact on the held-out part) is a party wherever the page
    # prints it, in a sentence too, not only near the seal (`find._rims_printed`): a patent
    # certificate's issuer named in its text, a diploma's university printed far from its
    # seal. On the tuning part 2 more owned seals linked, none more wrongly (0.85: 3 more, one
    # wrong link moved to another wrong party; 0.95 as 0.9; 0.98: 1 more).
    rim_anywhere: float = 0.9


DEFAULT_PARTIES = PartiesParams()
