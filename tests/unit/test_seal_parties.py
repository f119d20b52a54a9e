"""The parties a page names, from hand-made lines (text and box, as the general OCR gives them):
found by label and by layout, each seal linked to one, and the page's verdict. No images."""

from __future__ import annotations

from dataclasses import replace

from imgproc.seal.parties import DEFAULT_PARTIES, document_check, page_parties
from imgproc.seal.parties.find import document_kind, organisation, parse_label
from imgproc.seal.parties.layout import under_seal
from imgproc.seal.parties.link import SealSays, linked, party_scores, tax_id_agrees
from imgproc.seal.records import Box, Party
from imgproc.seal.words import NO_WORDS
from imgproc.text.lines import TextLine

SELLER_ID = "91310114MA1GW61J6U"  # passes its check characters
OTHER_ID = "91440300192478382J"  # so does this one: another organisation's
SEAL: Box = (600, 600, 800, 740)
FOUND = 0.5


def line(text: str, x0: int, y0: int, x1: int, y1: int) -> TextLine:
    return TextLine(text, 0.99, (x0, y0, x1, y1))


def parties(
    lines: list[TextLine],
    seals: tuple[Box, ...] = (SEAL,),
    height: int = 1000,
    rims: tuple[str, ...] = (),
    rim_scores: tuple[float, ...] = (),
) -> tuple[str, list[Party]]:
    return page_parties(lines, seals, height, NO_WORDS.normalized, rims=rims, rim_scores=rim_scores)


def says(rim: str, score: float = 0.9, codes: tuple[str, ...] = ()) -> SealSays:
    return SealSays(rim, score, codes)


def roles(found: list[Party]) -> dict[str, str]:
    return {party.role: party.text for party in found}


# An e-invoice: each party's name on one line after its label.
E_INVOICE = [
    line("电子发票（普通发票）", 300, 20, 700, 60),
    line("购买方名称：北京某某科技有限公司", 20, 120, 400, 150),
    line("销售方名称：上海滴滴畅行科技有限公司", 500, 120, 900, 150),
    line("统一社会信用代码/纳税人识别号：" + SELLER_ID, 500, 160, 900, 190),
]


def test_an_invoice_names_its_seller_and_buyer_by_label_with_the_sellers_tax_id() -> None:
    kind, found = parties(E_INVOICE)
    assert kind == "invoice"
    assert roles(found) == {"buyer": "北京某某科技有限公司", "seller": "上海滴滴畅行科技有限公司"}
    seller = next(party for party in found if party.role == "seller")
    assert (seller.source, seller.tax_id, seller.box) == ("label", SELLER_ID, (500, 120, 900, 150))


# An older VAT invoice: the role printed down a column at each block's left, 名 称 spaced, and a
# value printed beside its label as a line of its own.
VAT_INVOICE = [
    line("增值税普通发票", 300, 20, 600, 60),
    line("购买方", 20, 100, 50, 220),
    line("名 称：", 60, 110, 140, 135),
    line("南通某某贸易有限公司", 160, 110, 420, 135),
    line("纳税人识别号：", 60, 150, 200, 175),
    line(OTHER_ID, 210, 150, 420, 175),
    line("销售方", 20, 600, 50, 720),
    line("名 称：", 60, 610, 140, 635),
    line("崇川区梦回酒吧", 160, 610, 340, 635),
    line("纳税人识别号：", 60, 650, 200, 675),
    line(SELLER_ID, 210, 650, 420, 675),
]


def test_a_value_beside_its_label_takes_the_role_of_the_column_at_its_left() -> None:
    kind, found = parties(VAT_INVOICE)
    assert kind == "invoice"
    assert roles(found) == {"buyer": "南通某某贸易有限公司", "seller": "崇川区梦回酒吧"}
    taxes = {party.role: party.tax_id for party in found}
    assert taxes == {"buyer": OTHER_ID, "seller": SELLER_ID}


def test_a_role_printed_down_a_blocks_left_names_no_other_row_of_its_block() -> None:
    # The seller's block also prints its bank and its address beside the column; a line of
    # those is no seller (交通银行...支行 was taken for one, and the seal, rightly the 名称
    # row's, was then "not the seller's").
    bank = line("开户行及账号：交通银行股份有限公司青岛崂山支行372005570018000008457", 60, 690, 640, 715)
    found = parties([*VAT_INVOICE, bank])[1]
    assert [party.text for party in found if party.role == "seller"] == ["崇川区梦回酒吧"]


def test_a_seal_asking_aside_read_without_its_closing_bracket_is_no_seller() -> None:
    # 销售方：（章） read as 销售方（章: a 2-character "name" that 发票专用章 on any seal supports.
    found = parties([*VAT_INVOICE, line("销售方：（章", 800, 900, 920, 930)])[1]
    assert [party.text for party in found if party.role == "seller"] == ["崇川区梦回酒吧"]


def test_without_a_role_column_the_first_name_is_the_buyers() -> None:
    columns = [item for item in VAT_INVOICE if item.text not in ("购买方", "销售方")]
    assert roles(parties(columns)[1]) == {"buyer": "南通某某贸易有限公司", "seller": "崇川区梦回酒吧"}


def test_a_value_printed_under_its_label_is_read_there() -> None:
    lines = [
        line("合同", 300, 20, 400, 60),
        line("甲方（盖章）：", 40, 600, 200, 630),
        line("上海明佳机械有限公司", 40, 640, 300, 670),
        line("乙方：上海月之恒网络科技有限公司（以下简称乙方）", 500, 600, 950, 630),
    ]
    kind, found = parties(lines)
    assert kind == "contract"
    assert roles(found) == {"party_a": "上海明佳机械有限公司", "party_b": "上海月之恒网络科技有限公司"}


def test_a_certificates_issuer_is_the_organisation_printed_by_its_seal() -> None:
    lines = [
        line("荣誉证书", 400, 50, 600, 100),
        line("张三同学在比赛中荣获一等奖，特发此证。", 100, 300, 900, 340),
        line("上海市教育委员会", 620, 640, 780, 670),
        line("2019年5月", 640, 700, 760, 730),
    ]
    kind, found = parties(lines)
    assert kind == "certificate"
    assert [(p.role, p.text, p.source) for p in found] == [("issuer", "上海市教育委员会", "layout")]


def test_a_name_printed_by_its_seal_that_the_rim_reads_whole_is_a_party_without_a_legal_form() -> None:
    # 信息网 ends no organisation's name the layout rule knows; the seal reading it is the proof.
    lines = [
        line("鉴定证书", 400, 50, 600, 100),
        line("组织鉴定单位：", 80, 540, 300, 575),
        line("全国冶金焦化信息网", 370, 540, 690, 580),
        line("（盖章）", 760, 540, 870, 580),
    ]
    sentence = [line("全国冶金焦化信息网组织专家对本项目进行了鉴定", 100, 540, 900, 580)]
    rim = ("全国冶金焦化信息网",)
    assert parties(lines)[1] == []
    found = parties(lines, rims=rim)[1]
    assert [(p.role, p.text, p.source) for p in found] == [("issuer", "全国冶金焦化信息网", "rim")]
    assert parties(sentence, rims=rim)[1] == []
    assert parties(lines, rims=("全国冶金",))[1] == []


def test_a_rim_read_surely_is_a_party_wherever_the_page_prints_it_in_a_sentence_too() -> None:
    # a patent certificate: its issuer named in its text at the top, its seal at the foot
    lines = [line("国家知识产权局依照中华人民共和国专利法进行审查，决定授予专利权。", 60, 300, 940, 340)]
    rim, sure = ("国家知识产权局",), DEFAULT_PARTIES.rim_anywhere
    found = parties(lines, rims=rim, rim_scores=(sure,))[1]
    assert [(p.text, p.source, p.box) for p in found] == [("国家知识产权局", "rim", (60, 300, 940, 340))]
    assert parties(lines, rims=rim, rim_scores=(sure - 0.1,))[1] == []  # read unsurely: only near it


def test_a_letterhead_over_the_title_of_a_page_scanned_with_its_margins_is_a_party() -> None:
    # the copyright office's certificate: its name ends 0.16 of the page down, the seal at its foot
    head = [
        line("中华人民共和国国家版权局", 150, 96, 450, 160),
        line("计算机软件著作权登记证书", 126, 170, 476, 210),
    ]
    assert [p.text for p in parties(head, seals=((345, 800, 475, 930),))[1]] == ["中华人民共和国国家版权局"]
    lower = [replace(head[0], box=(150, 250, 450, 300))]  # a fourth of the way down: the page's body
    assert parties(lower, seals=((345, 800, 475, 930),))[1] == []


def test_two_names_set_one_over_the_other_that_the_rim_reads_as_one_are_one_party() -> None:
    # an organisation and its unit on two lines under their seal; the seal names both at once
    lines = [
        line("荣誉证书", 400, 50, 600, 100),
        line("山东省教育厅", 620, 640, 760, 670),
        line("关心下一代工作委员会", 600, 680, 790, 710),
    ]
    rim = "山东省教育厅关心下一代工作委员会"
    assert rim not in [p.text for p in parties(lines)[1]]
    joined = [p for p in parties(lines, rims=(rim,))[1] if p.text == rim]
    assert [(p.source, p.box) for p in joined] == [("rim", (600, 640, 790, 710))]
    apart = [lines[0], lines[1], replace(lines[2], box=(600, 900, 790, 930))]  # far under it
    assert rim not in [p.text for p in parties(apart, rims=(rim,))[1]]
    assert rim[::-1] not in [p.text for p in parties(lines, rims=(rim[::-1],))[1]]


def test_an_organisation_printed_far_from_every_seal_in_the_middle_of_the_page_is_no_party() -> None:
    lines = [line("根据上海市教育委员会的要求", 100, 450, 500, 480), line("北京大学", 100, 500, 200, 530)]
    assert parties(lines, seals=((800, 850, 950, 990),))[1] == []


def test_labels_and_names_are_read_after_normalization() -> None:
    assert parse_label("名称:崇川区梦回酒吧") is not None
    assert parse_label("甲方代表：张三") is not None and organisation("代表:张三") is None
    assert organisation("上海市教育委员会2019年5月") == "上海市教育委员会"
    assert organisation("公司") is None  # a word, not a name
    assert document_kind([line("证明", 0, 0, 50, 20)]) == "certificate"
    assert document_kind([line("说明", 0, 0, 50, 20)]) == "other"


def test_a_tax_id_read_as_printed_agrees_and_two_true_ids_that_differ_do_not() -> None:
    assert tax_id_agrees(SELLER_ID, [SELLER_ID]) is True
    assert tax_id_agrees(SELLER_ID, [OTHER_ID]) is False
    misread = SELLER_ID[:-1] + "X"  # fails its check: read wrong, so it tells nothing
    assert tax_id_agrees(SELLER_ID, [misread]) is None
    assert tax_id_agrees(None, [SELLER_ID]) is None


SELLER = Party("seller", "上海滴滴畅行科技有限公司", (0, 0, 1, 1), "label", SELLER_ID)
BUYER = Party("buyer", "北京某某科技有限公司", (0, 0, 1, 1), "label")


def test_a_seal_is_linked_to_the_party_whose_name_its_frames_support() -> None:
    scores, full = party_scores([0.97, 0.01], says("上海滴滴畅行科技有限公司"), [SELLER, BUYER], FOUND)
    link = linked(scores, full, [SELLER, BUYER], SEAL, FOUND)
    assert link is not None and (link.index, link.role) == (0, "seller")


def test_a_seal_of_another_organisation_is_linked_to_none() -> None:
    scores, full = party_scores([0.02, 0.01], says("杭州某某有限公司"), [SELLER, BUYER], FOUND)
    assert linked(scores, full, [SELLER, BUYER], SEAL, FOUND) is None


def test_a_tax_id_decides_where_the_name_was_misread_and_a_differing_one_unlinks() -> None:
    scores, full = party_scores(
        [0.2, 0.0], says("上海滴滴畅行科枝", 0.3, (SELLER_ID,)), [SELLER, BUYER], FOUND
    )
    assert linked(scores, full, [SELLER, BUYER], SEAL, FOUND) is not None
    scores, full = party_scores(
        [0.9, 0.0], says("上海滴滴畅行科技有限公司", 0.9, (OTHER_ID,)), [SELLER, BUYER], FOUND
    )
    assert linked(scores, full, [SELLER, BUYER], SEAL, FOUND) is None


def test_a_rim_that_is_part_of_two_names_links_to_neither() -> None:
    offices = [
        Party("issuer", "中南大学教务处", (0, 0, 1, 1), "layout"),
        Party("issuer", "中南大学学生工作部", (0, 0, 1, 1), "layout"),
    ]
    scores, full = party_scores([0.0, 0.0], says("中南大学", 0.95), offices, FOUND)
    assert scores == [0.95, 0.95] and full == [False, False]
    assert linked(scores, full, offices, SEAL, FOUND) is None
    scores, full = party_scores([0.0], says("中南大学", 0.95), offices[:1], FOUND)
    assert linked(scores, full, offices[:1], SEAL, FOUND) is not None


def test_of_two_names_one_within_the_other_the_longer_is_linked() -> None:
    bank = [
        Party("named", "中国工商银行", (0, 0, 1, 1), "layout"),
        Party("named", "中国工商银行股份有限公司", (0, 0, 1, 1), "layout"),
    ]
    scores, full = party_scores([0.99, 0.98], says("中国工商银行股份有限公司"), bank, FOUND)
    link = linked(scores, full, bank, SEAL, FOUND)
    assert link is not None and link.index == 1


def check(
    kind: str, found: list[Party], scores: list[list[float]], rims: list[str], sure: float = 0.9
) -> tuple[str, list[str]]:
    document = document_check(
        kind, found, scores, [says(rim, sure) for rim in rims], [SEAL] * len(rims), FOUND
    )
    return document.verdict, document.reasons


def test_an_invoices_verdict_says_whether_the_sellers_seal_is_there() -> None:
    assert (
        check("invoice", [SELLER, BUYER], [[0.97, 0.0]], ["上海滴滴畅行科技有限公司"])[0] == "seller_sealed"
    )
    verdict, reasons = check("invoice", [SELLER, BUYER], [[0.01, 0.0]], ["杭州某某有限公司"])
    assert verdict == "seller_seal_mismatch" and "杭州某某有限公司" in reasons[0]
    # The form's printed supervision seal is no party's, and no seller's seal either.
    assert check("invoice", [SELLER, BUYER], [[0.0, 0.0]], ["全国统一发票监制章"])[0] == "seller_unsealed"
    assert check("invoice", [BUYER], [[0.0]], ["杭州某某有限公司"])[0] == "seller_not_found"


def test_a_seal_read_unsurely_is_not_called_anothers() -> None:
    verdict, reasons = check("invoice", [SELLER, BUYER], [[0.01, 0.0]], ["酒吧崇川区"], sure=0.36)
    assert verdict == "seller_seal_unread" and "0.36" in reasons[0]
    # ...unless its own tax ID, read as a true one, differs from the seller's.
    document = document_check(
        "invoice", [SELLER, BUYER], [[0.01, 0.0]], [says("酒吧", 0.36, (OTHER_ID,))], [SEAL], FOUND
    )
    assert document.verdict == "seller_seal_mismatch"


def test_a_seal_misread_in_a_character_is_anothers_where_the_sellers_name_is_absent() -> None:
    # Its rim is not exact (万发 for 万丰: 0.05), yet its frames give the seller's name nothing.
    rim = "杭州萧山宁东万发加油站有限公司"
    assert check("invoice", [SELLER, BUYER], [[1e-6, 0.0]], [rim], sure=0.05)[0] == "seller_seal_mismatch"
    assert check("invoice", [SELLER, BUYER], [[0.005, 0.0]], [rim], sure=0.05)[0] == "seller_seal_unread"


def test_a_contracts_verdict_says_which_parties_have_sealed() -> None:
    a = Party("party_a", "上海明佳机械有限公司", (0, 0, 1, 1), "label")
    b = Party("party_b", "上海月之恒网络科技有限公司", (0, 0, 1, 1), "label")
    assert check("contract", [a, b], [[0.9, 0.0], [0.0, 0.9]], ["x", "y"])[0] == "all_sealed"
    verdict, reasons = check("contract", [a, b], [[0.9, 0.0]], ["x"])
    assert verdict == "partly_sealed" and reasons[1] == "party_b 上海月之恒网络科技有限公司 has not sealed"
    assert check("contract", [a, b], [], [])[0] == "unsealed"


def test_other_pages_say_whether_a_seal_is_a_named_partys() -> None:
    issuer = Party("issuer", "上海市教育委员会", (0, 0, 1, 1), "layout")
    assert check("certificate", [issuer], [[0.9]], ["上海市教育委员会"])[0] == "sealed_by_party"
    assert check("certificate", [issuer], [[0.1]], ["北京大学"])[0] == "no_party_seal"
    assert check("other", [], [[]], ["北京大学"])[0] == "no_parties"


def test_a_name_misread_under_its_seal_still_matches_the_seals_rim() -> None:
    printed = Party("issuer", "人资源和社会保障局", (600, 650, 800, 690), "layout")  # 力 lost under the ink
    scores, full = party_scores([0.0], says("上海市人力资源和社会保障局", 0.96), [printed], FOUND)
    assert scores == [0.96] and full == [False]
    assert linked(scores, full, [printed], SEAL, FOUND) is not None
    two_changes = says("上海市人力资源和社会保障厅")  # 力 lost and 局 for 厅: two changes in 9
    assert party_scores([0.0], two_changes, [printed], FOUND)[0] == [0.0]
    assert party_scores([0.0], says("上海市教育委员会"), [printed], FOUND)[0] == [0.0]


def test_of_two_names_a_seal_supports_the_one_printed_by_it_is_linked() -> None:
    near = Party("issuer", "教育委员会", (620, 640, 780, 680), "layout")
    far = Party("issuer", "上海市委", (100, 100, 300, 140), "layout")
    scores, full = party_scores([1.0, 0.98], says("上海市教育委员会"), [near, far], FOUND)
    link = linked(scores, full, [near, far], SEAL, FOUND)
    assert link is not None and link.index == 0


def test_of_two_names_near_a_seal_in_a_row_the_one_under_its_centre_is_linked() -> None:
    # A row of seals over a row of names: the next seal's name, read unsurely, reaches under
    # this seal's edge, and its rim reads most of both (the first character and the last word
    # misread on the page): the name whose centre lies inside this seal is its own.
    seal: Box = (584, 1912, 927, 2261)
    own = Party("issuer", "河北省科学技术市", (592, 2060, 906, 2111), "layout")
    next_one = Party("issuer", "海北省科学技术协会", (239, 2060, 592, 2111), "layout")
    scores, full = [0.68, 0.68], [False, False]
    link = linked(scores, full, [next_one, own], seal, FOUND)
    assert link is not None and link.index == 1
    assert linked(scores, full, [next_one, replace(own, box=(230, 2120, 560, 2170))], seal, FOUND) is None


def test_a_name_wider_than_its_seal_is_printed_under_it_not_read_off_its_ring() -> None:
    # 校名：上海交通大学 printed across the seal's left half: its centre lies on the ring band,
    # but it runs out of the seal's box, so it is print, not the rim read by the page's reader.
    seal: Box = (734, 426, 878, 572)
    wide = line("校名：上海交通大学", 620, 478, 883, 513)
    assert roles(parties([wide], seals=(seal,))[1]) == {"named": "上海交通大学"}
    rim_piece = line("上海交通大学", 736, 440, 790, 470)  # inside the box, off the core: the rim
    assert parties([rim_piece], seals=(seal,))[1] == []


def test_a_name_that_asks_for_the_seal_is_a_name_without_the_ask() -> None:
    printed = line("北京化工大学教务处（盖章）", 1532, 1840, 2388, 1909)
    found = parties([printed], seals=((1669, 1956, 2222, 2510),), height=3300)[1]
    assert [party.text for party in found] == ["北京化工大学教务处"]


def test_a_name_with_a_word_of_sentences_inside_a_longer_one_is_a_name() -> None:
    # 应 (should) marks a sentence, but 应用 and 应急 are words of names.
    assert organisation("全国应用型人才综合技能大赛组委会") == "全国应用型人才综合技能大赛组委会"
    assert organisation("重庆市綦江区应急管理局") == "重庆市綦江区应急管理局"
    assert organisation("双方应当向人民法院") is None


def test_a_title_in_the_head_names_the_organisation_it_starts_with() -> None:
    title = line("北京理工大学珠海学院学生成绩单", 335, 100, 870, 135)
    assert roles(parties([title], seals=((684, 1231, 879, 1428),), height=1500)[1]) == {
        "named": "北京理工大学珠海学院"
    }
    # ...only a title: the same words in the page's middle, far from a seal, name nobody, and a
    # name followed by more than a document's name is no name.
    middle = line("北京理工大学珠海学院学生成绩单", 335, 700, 870, 735)
    assert parties([middle], seals=(), height=1500)[1] == []
    assert organisation("北京理工大学珠海学院学生成绩单", title=True) == "北京理工大学珠海学院"
    assert organisation("北京理工大学珠海学院学生成绩单") is None
    assert organisation("北京大学的学生们在会上宣读了证书", title=True) is None


def test_a_name_printed_under_a_seal_and_read_broken_is_the_seals_where_most_of_it_agrees() -> None:
    # 中国商业统计学会 under its seal, read broken (and unsurely: 0.79)
    under = Party("issuer", "市国商亚计学会", (568, 629, 724, 652), "layout", confidence=0.79)
    scores, full = party_scores([0.0], says("中国商业统计学会", 0.93), [under], FOUND, under=[True])
    assert scores == [0.93] and full == [False]
    # ...only where it is printed under the seal: the same name elsewhere tells nothing.
    assert party_scores([0.0], says("中国商业统计学会", 0.93), [under], FOUND, under=[False])[0] == [0.0]
    # ...and only where the rim's last word (the kind of organisation) is among what agrees:
    # 上海市人力资源和社会保障厅 over 人资源和社会保障局 is another office's seal.
    office = Party("issuer", "人资源和社会保障局", (600, 650, 800, 690), "layout")
    province = says("上海市人力资源和社会保障厅", 0.96)
    assert party_scores([0.0], province, [office], FOUND, under=[True])[0] == [0.0]
    # ...and a name read surely is read as printed: it may lack what the ink covered (人工智能
    # here), but a clear name that adds characters the rim lacks is another organisation's.
    dropped = Party("issuer", "全球校园工算法精英大赛", (600, 650, 800, 690), "layout", confidence=0.98)
    contest = says("全球校园人工智能算法精英赛", 0.7)
    assert party_scores([0.0], contest, [dropped], FOUND, under=[True])[0] == [0.7]
    company = Party("seller", "上海滴滴畅行科技有限公司", (600, 650, 800, 690), "label", confidence=0.98)
    another = says("上海某某科技有限公司", 0.9)
    assert party_scores([0.0], another, [company], FOUND, under=[True])[0] == [0.0]
    unsure = replace(company, confidence=0.8)  # the same read unsurely may be the seal's, broken
    assert party_scores([0.0], another, [unsure], FOUND, under=[True])[0] == [0.9]


def test_an_office_word_after_a_name_read_surely_is_not_the_seals_to_say() -> None:
    # A contest's seal says the contest; its committee prints the name with 组委会 after it.
    printed = "中国大学生服外新剑业大赛组委会"  # read broken, but surely (0.97)
    committee = Party("issuer", printed, (600, 650, 800, 690), "layout", confidence=0.97)
    contest = says("中国大学生服务外包创新创业大赛", 0.81)
    assert party_scores([0.0], contest, [committee], FOUND, under=[True])[0] == [0.81]


def test_a_rim_read_unsurely_that_mostly_reads_the_name_under_it_is_that_names() -> None:
    union = Party("issuer", "重庆市誉江区总工会", (600, 650, 800, 690), "layout", confidence=0.92)
    scores, _ = party_scores([0.0], says("重庆江区工会", 0.40), [union], FOUND, under=[True])
    assert scores == [DEFAULT_PARTIES.agree_score] and scores[0] >= FOUND
    assert linked(scores, [False], [union], SEAL, FOUND) is not None


def test_names_printed_side_by_side_under_their_seals_and_read_as_one_line_are_cut_apart() -> None:
    seals = ((956, 904, 1236, 1186), (1253, 907, 1542, 1190))
    # read as one line, its first name's characters wider apart than its second's
    one_line = line("山东省发辰·文革委员会山东省工印信息化厅", 953, 1017, 1540, 1061)
    found = parties([one_line], seals=seals, height=1400)[1]
    assert [party.text for party in found] == ["山东省发辰·文革委员会", "山东省工印信息化厅"]
    assert [under_seal(party.box, [seals[i]]) for i, party in enumerate(found)] == [True, True]
    # ...and a line under one seal stays whole
    assert [p.text for p in parties([one_line], seals=seals[:1], height=1400)[1]] == [
        "山东省发辰·文革委员会山东省工印信息化厅"
    ]
    # ...and so does a rim read short and unsurely that a name printed under it holds
    company = Party("issuer", "深圳信盈达科技有限公司", (600, 650, 800, 690), "layout", confidence=0.99)
    short = says("盈达科技有限公司", 0.48)
    assert party_scores([0.0], short, [company], FOUND, under=[True])[0] == [DEFAULT_PARTIES.agree_score]
    assert party_scores([0.0], short, [company], FOUND, under=[False])[0] == [0.48]


def test_a_name_printed_under_one_seal_is_not_a_far_seals() -> None:
    # Two seals of 广西科技大学 far apart, each over its own line: the first over the name.
    first: Box = (318, 219, 432, 335)
    second: Box = (292, 590, 406, 706)
    name = Party("named", "广西技大学", (340, 278, 423, 294), "layout")
    both = [says("广西科技大学", 0.51), says("广西科技大学", 0.51)]
    document = document_check("other", [name], [[0.99], [0.99]], both, [first, second], FOUND)
    assert [link is not None for link in document.links] == [True, False]


def test_pieces_of_a_name_read_apart_under_its_seal_are_one_name() -> None:
    # 重庆市綦江区总工会 under its seal, read in three pieces (the last out of the seal's box):
    # alone none is long enough to be a name, joined they agree with the rim.
    seal: Box = (866, 1271, 958, 1365)
    pieces = [
        line("重庆", 835, 1310, 890, 1328),
        line("区总", 917, 1311, 953, 1325),
        line("会", 960, 1311, 972, 1324),
    ]
    found = parties(pieces, seals=(seal,), height=1440)[1]
    assert [party.text for party in found] == ["重庆区总会"]
    rim = says("重庆市綦江区总函会", 0.51)
    document = document_check("certificate", found, [[0.0]], [rim], [seal], FOUND)
    assert document.links[0] is not None
    # ...and a name set on two lines under its seal is one name
    seal = (1352, 2300, 1845, 2712)
    two = [
        line("上海市大学生节能减排", 1293, 2434, 1738, 2489),
        line("社会实践与科技竞赛委员会", 1250, 2504, 1784, 2554),
    ]
    assert [party.text for party in parties(two, seals=(seal,), height=3000)[1]] == [
        "上海市大学生节能减排社会实践与科技竞赛委员会"
    ]


def test_names_side_by_side_or_ended_or_a_date_under_them_are_not_joined() -> None:
    # two names side by side, each under its own seal, stay two
    seals = ((985, 949, 1159, 1124), (1503, 948, 1677, 1122))
    left = line("中国学位与究政育手会", 823, 1016, 1203, 1056)
    right = line("同方知网(北京)支木限司", 1266, 1015, 1713, 1058)
    assert [p.text for p in parties([left, right], seals=seals, height=1462)[1]] == [left.text, right.text]
    # a name that ends as a name ends is not continued by the next one on its row
    seal: Box = (440, 1270, 640, 1370)
    office = line("重庆市綦江区应急管理局", 420, 1308, 620, 1334)
    board = line("重庆市綦江区教育委员会", 632, 1306, 811, 1334)
    found = parties([office, board], seals=(seal,), height=1440)[1]
    assert [p.text for p in found] == [office.text, board.text]
    # ...nor by the date printed under it
    name = line("上海市大学生节能减排", 1293, 2434, 1738, 2489)
    date = line("二〇二五年五月", 1300, 2500, 1730, 2550)
    found = parties([name, date], seals=((1352, 2300, 1845, 2712),), height=3000)[1]
    assert "上海市大学生节能减排" in [p.text for p in found]


def test_a_youth_league_committees_short_form_is_its_seals_spelled_out_name() -> None:
    # 共青团...委员会 printed under a seal whose rim spells out 中国共产主义青年团 (read in part)
    league = Party("issuer", "共青团山东中西药大学委员会", (326, 294, 538, 311), "layout", confidence=0.92)
    scores, _ = party_scores([0.0], says("国共产主义年", 0.63), [league], FOUND, under=[True])
    assert scores == [DEFAULT_PARTIES.agree_score]


def test_the_seals_own_rim_and_pieces_printed_downwards_are_not_joined_to_a_name() -> None:
    # what the page's reader reads of the seal's ring (能威排社) is no piece of the name under it
    seal: Box = (1333, 2308, 1756, 2726)
    ring = line("能威排社", 1413, 2315, 1628, 2433)
    two = [
        line("上海市大学生节能减排", 1293, 2434, 1738, 2489),
        line("社会实践与科技竞赛委员会", 1250, 2504, 1784, 2554),
    ]
    found = [p.text for p in parties([ring, *two], seals=(seal,), height=3000)[1]]
    assert found == ["上海市大学生节能减排社会实践与科技竞赛委员会"]
    # a page turned on its side is read in pieces printed downwards: no rows to join
    seal = (43, 277, 367, 565)
    side = [line("东省教育", 112, 289, 235, 558), line("北京师范木学(珠海校区)", 633, 407, 751, 1205)]
    assert [p.text for p in parties(side, seals=(seal,), height=1563)[1]] == ["东省教育"]


def test_a_name_read_unsurely_under_its_seal_may_have_its_last_word_misread() -> None:
    # 中国青年志愿者协会秘书处 under its seal, read unsurely (0.79) with 协会 read 协金
    printed = Party("issuer", "中国青军志愿者协金邮书处", (670, 1216, 1034, 1256), "layout", confidence=0.79)
    rim = says("中国青年志愿者协会", 0.8)
    assert party_scores([0.0], rim, [printed], FOUND, under=[True])[0] == [0.8]
    # ...but a line read surely says its organisation's kind as printed
    sure = replace(printed, confidence=0.97)
    assert party_scores([0.0], rim, [sure], FOUND, under=[True])[0] == [0.0]
