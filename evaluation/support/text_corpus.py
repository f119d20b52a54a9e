"""A deterministic OCR test corpus: rendered pages and single text lines, English and Chinese.

`generate_corpus(seed)` renders, with Pillow and the Debian fonts below, every combination of
kind ("page": several wrapped lines on white or light-grey paper, skewed up to 10 degrees;
"line": one tightly cropped line), language ("en", "zh") and variant ("clean" PNG, "noise"
PNG with Gaussian noise and a slight blur, "jpeg" at low quality). The same seed gives the
same bytes on the same Pillow and fonts. The text is invented sentences written below, in
the recogniser's character set. Fonts come from Debian packages fonts-dejavu-core,
fonts-liberation, fonts-noto-cjk and fonts-wqy-zenhei; `FontMissingError` says which to
install when none of a language's candidates is present.
"""

from __future__ import annotations

import io
import random
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

FONT_DIRS = (Path("/usr/share/fonts/truetype"), Path("/usr/share/fonts/opentype"))
EN_FONTS = (
    "dejavu/DejaVuSans.ttf",
    "dejavu/DejaVuSerif.ttf",
    "liberation/LiberationSans-Regular.ttf",
    "liberation/LiberationSerif-Regular.ttf",
)
ZH_FONTS = ("noto/NotoSansCJK-Regular.ttc", "noto/NotoSerifCJK-Regular.ttc", "wqy/wqy-zenhei.ttc")
ZH_FAMILY_MARKERS = ("CJK SC", "WenQuanYi")  # pick the Simplified Chinese face of a collection
FONT_PACKAGES = "fonts-dejavu-core fonts-liberation fonts-noto-cjk fonts-wqy-zenhei"
MAX_FACES_PER_COLLECTION = 10

KINDS = ("page", "line")
LANGUAGES = ("en", "zh")
VARIANTS = ("clean", "noise", "jpeg")
PAGE_WIDTH = (900, 1300)
PAGE_LINES = (4, 9)
PAGE_FONT_PX = (22, 40)
LINE_FONT_PX = (18, 48)
LINE_CHARS = {"en": (12, 48), "zh": (6, 22)}
MAX_SKEW_DEG = 10.0
LINE_SPACING = 1.6
MARGIN_EM = 1.5
LINE_MARGIN_EM = 0.3  # single lines are tight crops, as a caller would send a cut-out line
MIN_LINE_MARGIN_PX = 4
PAPER_GREY = (225, 255)
INK_GREY = (0, 70)
NOISE_SIGMA = (6.0, 14.0)
NOISE_BLUR = 0.6
JPEG_QUALITY = (25, 55)

EN_SENTENCES = (
    "The morning train to the coast leaves at seven fifteen from platform four.",
    "Please keep your receipt until the repair has been completed and checked.",
    "Our small bakery sells fresh bread, honey cakes and strong black coffee.",
    "The committee will meet again on Thursday to review the annual budget.",
    "Heavy rain is expected in the northern valleys later this afternoon.",
    "Each parcel must carry a clear label with the full delivery address.",
    "The library extends its opening hours during the examination period.",
    "A quiet garden behind the old mill grows tomatoes, beans and mint.",
    "Visitors are asked to switch off their phones inside the concert hall.",
    "The engineer measured the bridge twice before approving the new design.",
    "Invoice 2024-0375 is due within thirty days of the date shown above.",
    "Turn left at the second crossing and follow the signs to the harbour.",
    "The museum shows maps, coins and tools found near the river bank.",
    "Children under twelve travel free when they ride with an adult.",
    "Store the medicine in a cool dry place away from direct sunlight.",
    "The new software update improves battery life and fixes several bugs.",
    "Volunteers planted three hundred young oak trees along the old road.",
    "Room 214 has been booked for the training session on Monday at 9:30.",
    "The chef adds a pinch of salt and a little lemon juice to the sauce.",
    "Our support team answers most questions within one working day.",
    "The village market opens every Saturday from eight until noon.",
    "Read the safety instructions carefully before using the machine.",
    "The average temperature last July was 27.4 degrees, a new record.",
    "She wrote the report in plain language so that everyone could follow it.",
    "Bicycles may be parked in the yard behind the main building.",
    "The quarterly sales rose by 12 percent compared with the previous year.",
    "Fresh paint on the benches will be dry by tomorrow evening.",
    "The orchestra rehearsed the final movement until late at night.",
    "Please return borrowed books to the desk on the ground floor.",
    "A friendly cat sleeps on the warm window sill of the post office.",
)
ZH_SENTENCES = (
    "今天上午九点在三楼会议室召开项目进度会议。",
    "请在收到货物后七天内检查包装是否完好。",
    "这家小店出售新鲜的面包和热咖啡。",
    "明天北部山区有中到大雨，请注意出行安全。",
    "图书馆在考试期间延长开放时间到晚上十点。",
    "所有包裹都必须贴上清楚的收件地址。",
    "工程师在批准新设计之前又测量了一次桥梁。",
    "发票编号为二零二四零三七五，请在三十天内付款。",
    "在第二个路口左转，然后沿着指示牌走到码头。",
    "博物馆展出了在河边发现的地图、硬币和工具。",
    "十二岁以下的儿童由成人陪同可以免费乘车。",
    "药品应放在阴凉干燥处，避免阳光直射。",
    "新版软件提高了电池寿命，并修复了几个问题。",
    "志愿者沿着老路种下了三百棵小橡树。",
    "周一上午九点半的培训安排在二一四房间。",
    "厨师在汤里加了一点盐和少许柠檬汁。",
    "我们的客服团队通常在一个工作日内答复。",
    "村里的集市每周六早上八点开到中午。",
    "使用机器之前请仔细阅读安全说明。",
    "去年七月的平均气温是二十七度，创下新纪录。",
    "她用简单的语言写报告，让每个人都能看懂。",
    "自行车可以停放在主楼后面的院子里。",
    "本季度的销售额比去年同期增长了百分之十二。",
    "长椅上的油漆明天傍晚就会干透。",
    "乐团一直排练到深夜才结束最后一个乐章。",
    "请把借阅的图书归还到一楼服务台。",
    "一只友好的猫睡在邮局温暖的窗台上。",
    "城市公园的湖边新修了一条步行道。",
    "春天来了，山坡上开满了黄色的小花。",
    "学校食堂每天中午提供三种不同的套餐。",
)


@dataclass(frozen=True)
class Sample:
    """One rendered image and what it says: lines in reading order."""

    name: str
    image: bytes
    lines: tuple[str, ...]
    kind: str
    language: str
    variant: str


class FontMissingError(FileNotFoundError):
    """None of a language's candidate font files is installed."""


def font_paths(language: str) -> list[Path]:
    """Installed font files for `language`; raises FontMissingError naming the Debian packages."""
    names = EN_FONTS if language == "en" else ZH_FONTS
    found = [d / n for n in names for d in FONT_DIRS if (d / n).is_file()]
    if not found:
        raise FontMissingError(f"no {language} font among {names}; apt-get install {FONT_PACKAGES}")
    return found


def _face_index(path: Path) -> int:
    """Index of the Simplified Chinese face in a font collection (0 for a single font)."""
    for index in range(MAX_FACES_PER_COLLECTION):
        try:
            family = ImageFont.truetype(str(path), 12, index=index).getname()[0] or ""
        except OSError:
            break
        if any(marker in family for marker in ZH_FAMILY_MARKERS):
            return index
    return 0


@cache
def load_font(path: Path, size: int) -> ImageFont.FreeTypeFont:
    """The font at `path` in pixel `size` (the SC face of a CJK collection)."""
    return ImageFont.truetype(str(path), size, index=_face_index(path))


def _tokens(text: str, language: str) -> list[str]:
    return [word + " " for word in text.split()] if language == "en" else list(text)


def wrap(text: str, language: str, font: ImageFont.FreeTypeFont, width: float) -> list[str]:
    """Greedy word (English) or character (Chinese) wrap to `width` pixels."""
    lines, current = [], ""
    for token in _tokens(text, language):
        if current and font.getlength((current + token).rstrip()) > width:
            lines.append(current.rstrip())
            current = ""
        current += token
    return [*lines, current.rstrip()] if current.strip() else lines


def _paragraph(rng: random.Random, language: str, sentences: int) -> str:
    source = EN_SENTENCES if language == "en" else ZH_SENTENCES
    return (" " if language == "en" else "").join(rng.sample(source, sentences))


def _colors(rng: random.Random) -> tuple[int, int]:
    return rng.randint(*PAPER_GREY), rng.randint(*INK_GREY)


def _draw_lines(
    lines: list[str], font: ImageFont.FreeTypeFont, size: tuple[int, int], colors: tuple[int, int]
) -> Image.Image:
    """Lines on plain paper, left-aligned with a margin of MARGIN_EM font sizes."""
    paper, ink = colors
    image = Image.new("L", size, paper)
    draw, margin = ImageDraw.Draw(image), int(font.size * MARGIN_EM)
    for row, line in enumerate(lines):
        draw.text((margin, margin + row * font.size * LINE_SPACING), line, fill=ink, font=font)
    return image


def _skew(image: Image.Image, rng: random.Random, paper: int) -> Image.Image:
    angle = rng.uniform(-MAX_SKEW_DEG, MAX_SKEW_DEG)
    return image.rotate(angle, resample=Image.Resampling.BICUBIC, expand=True, fillcolor=paper)


def render_page(rng: random.Random, language: str) -> tuple[Image.Image, tuple[str, ...]]:
    """A skewed page of wrapped paragraphs and its lines."""
    font = load_font(rng.choice(font_paths(language)), rng.randint(*PAGE_FONT_PX))
    width, margin = rng.randint(*PAGE_WIDTH), int(font.size * MARGIN_EM)
    lines = wrap(_paragraph(rng, language, PAGE_LINES[1]), language, font, width - 2 * margin)
    lines = lines[: rng.randint(*PAGE_LINES)]
    height = int(2 * margin + len(lines) * font.size * LINE_SPACING)
    colors = _colors(rng)
    return _skew(_draw_lines(lines, font, (width, height), colors), rng, colors[0]), tuple(lines)


def _line_text(rng: random.Random, language: str) -> str:
    low, high = LINE_CHARS[language]
    text = _paragraph(rng, language, 2)
    if language == "zh":
        return text[: rng.randint(low, high)]
    return " ".join(text[: rng.randint(low, high)].split()[:-1] or text.split()[:1])


def render_line(rng: random.Random, language: str) -> tuple[Image.Image, tuple[str, ...]]:
    """One unskewed line of text with a narrow margin all round."""
    font = load_font(rng.choice(font_paths(language)), rng.randint(*LINE_FONT_PX))
    text = _line_text(rng, language)
    left, top, right, bottom = font.getbbox(text)
    margin = max(MIN_LINE_MARGIN_PX, int(font.size * LINE_MARGIN_EM))
    size = (int(right - left) + 2 * margin, int(bottom - top) + 2 * margin)
    colors = _colors(rng)
    image = Image.new("L", size, colors[0])
    ImageDraw.Draw(image).text((margin - left, margin - top), text, fill=colors[1], font=font)
    return image, (text,)


def _encode(image: Image.Image, variant: str, rng: random.Random) -> bytes:
    rgb, buffer = image.convert("RGB"), io.BytesIO()
    if variant == "noise":
        rgb = rgb.filter(ImageFilter.GaussianBlur(NOISE_BLUR))
        noise_rng = np.random.default_rng(rng.getrandbits(32))
        pixels = np.asarray(rgb, np.float32) + noise_rng.normal(
            0, rng.uniform(*NOISE_SIGMA), (rgb.height, rgb.width, 1)
        )
        rgb = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))
    if variant == "jpeg":
        rgb.save(buffer, format="JPEG", quality=rng.randint(*JPEG_QUALITY))
    else:
        rgb.save(buffer, format="PNG")
    return buffer.getvalue()


def generate_corpus(seed: int = 0, pages: int = 3, lines: int = 8) -> list[Sample]:
    """`pages` pages and `lines` lines for every language x variant, deterministically from `seed`."""
    samples = []
    for kind, count in (("page", pages), ("line", lines)):
        render = render_page if kind == "page" else render_line
        for language in LANGUAGES:
            for variant in VARIANTS:
                rng = random.Random(f"{seed}-{kind}-{language}-{variant}")
                for index in range(count):
                    image, truth = render(rng, language)
                    name = f"{kind}-{language}-{variant}-{index:03d}"
                    samples.append(Sample(name, _encode(image, variant, rng), truth, kind, language, variant))
    return samples
