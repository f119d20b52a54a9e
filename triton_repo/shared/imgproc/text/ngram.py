"""A character n-gram language model: how likely a character is after the ones before it.

Interpolated Kneser-Ney (Chen and Goodman's variant with one discount per order): the highest
order counts how often a character follows a context; the lower orders count in how many
contexts a character follows a shorter one (a character that ends many different words is
likely after an unseen context, one that only ends one common word is not). `BOS` and `EOS`
mark a text's start and end, so a model trained on names knows what names begin and end with
(有限公司 at the end). Characters never seen share `unseen` of the unigram mass among the
`alphabet` characters a text may hold (about the recognisers' charset's size).

The model is trained once (at provisioning, from weighted texts) and written as JSON: a
context's total count, its number of distinct followers, and each follower's count.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

BOS, EOS = "\x02", "\x03"  # a text's start and end, as characters no text holds


@dataclass(frozen=True)
class Context:
    """What followed one context: each character's count, their total and how many differ."""

    counts: dict[str, float]
    total: float
    distinct: int


@dataclass(frozen=True)
class CharNgram:
    """A trained model; `order` characters at most in an n-gram (the context is one less)."""

    order: int
    contexts: dict[str, Context]
    discounts: tuple[float, ...]  # per order (index 0: unigrams)
    vocabulary: int  # characters seen
    unseen: float = 1e-6
    alphabet: int = 20000

    def prob(self, context: str, char: str) -> float:
        """P(char | the last `order - 1` characters of `context`)."""
        return self._prob(context[len(context) - self.order + 1 :] if self.order > 1 else "", char)

    def _prob(self, context: str, char: str) -> float:
        if not context:
            unigrams = self.contexts.get("")
            if unigrams is None or char not in unigrams.counts:
                return self.unseen / max(self.alphabet - self.vocabulary, 1)
            seen = max(unigrams.counts[char] - self.discounts[0], 0.0) / unigrams.total
            spread = self.discounts[0] * unigrams.distinct / unigrams.total / self.vocabulary
            return (1.0 - self.unseen) * (seen + spread)
        lower = self._prob(context[1:], char)
        found = self.contexts.get(context)
        if found is None or found.total <= 0:
            return lower
        discount = self.discounts[len(context)]
        seen = max(found.counts.get(char, 0.0) - discount, 0.0) / found.total
        return seen + discount * found.distinct / found.total * lower

    def logprob(self, text: str, start: str = "", end: bool = False) -> float:
        """Natural log of P(text | it follows `start` at a text's start), with its end when `end`."""
        history, total = BOS * (self.order - 1) + start, 0.0
        for char in text + (EOS if end else ""):
            total += math.log(self.prob(history, char))
            history += char
        return total

    def to_json(self) -> str:
        """The model as one JSON document (`load_ngram` reads it back)."""
        contexts = {key: [c.total, c.distinct, c.counts] for key, c in self.contexts.items()}
        document = {
            "order": self.order,
            "discounts": self.discounts,
            "vocabulary": self.vocabulary,
            "unseen": self.unseen,
            "alphabet": self.alphabet,
            "contexts": contexts,
        }
        return json.dumps(document, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def load_ngram(path: Path) -> CharNgram:
    """A model written by `CharNgram.to_json`."""
    document = json.loads(path.read_text(encoding="utf-8"))
    contexts = {
        key: Context({str(k): float(v) for k, v in counts.items()}, float(total), int(distinct))
        for key, (total, distinct, counts) in document["contexts"].items()
    }
    return CharNgram(
        int(document["order"]),
        contexts,
        tuple(float(d) for d in document["discounts"]),
        int(document["vocabulary"]),
        float(document["unseen"]),
        int(document["alphabet"]),
    )


def _counts(texts: Iterable[tuple[str, float]], order: int) -> dict[str, dict[str, float]]:
    """Weighted counts of each character after each context of `order - 1` characters (the
    start padded with `BOS`), and of the end after the text."""
    table: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for text, weight in texts:
        padded = BOS * (order - 1) + text + EOS
        for i in range(order - 1, len(padded)):
            table[padded[i - order + 1 : i]][padded[i]] += weight
    return table


def _continuations(higher: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """Kneser-Ney's lower-order counts: in how many distinct longer contexts a character
    follows each context one shorter."""
    table: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for context, followers in higher.items():
        for char in followers:
            table[context[1:]][char] += 1.0
    return table


def _discount(table: dict[str, dict[str, float]]) -> float:
    """Ney's estimate D = n1 / (n1 + 2 n2) from the n-grams seen once and twice."""
    values = [count for followers in table.values() for count in followers.values()]
    once = sum(1 for count in values if count <= 1.0)
    twice = sum(1 for count in values if 1.0 < count <= 2.0)
    return once / (once + 2.0 * twice) if once + twice else 0.5


def train_ngram(
    texts: Iterable[tuple[str, float]], order: int = 3, unseen: float = 1e-6, alphabet: int = 20000
) -> CharNgram:
    """A model of `order` trained on weighted texts (`(text, weight)`), Kneser-Ney smoothed."""
    tables = [_counts(texts, order)]
    while len(tables) < order:
        tables.insert(0, _continuations(tables[0]))
    contexts: dict[str, Context] = {}
    for table in tables:
        for context, followers in table.items():
            counts = dict(followers)
            contexts[context] = Context(counts, sum(counts.values()), len(counts))
    vocabulary = len(tables[0].get("", {}))
    discounts = tuple(_discount(table) for table in tables)
    return CharNgram(order, contexts, discounts, vocabulary, unseen, max(alphabet, vocabulary + 1))
