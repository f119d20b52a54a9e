"""Train the MNIST digit classifier on CPU and export it to the Triton model repository.

Data: the first 8,000 digits of the shared MNIST test set (the last 2,000 are held out and
never read here). Every sample goes through the serving `to_mnist`; augmented epochs are
precomputed with a process pool and cached under .cache/ (keyed by the code that makes them).
`--dev` trains on the first 7,000 and reports accuracy on digits 7,000-7,999 (clean and
photo-style) for choosing the recipe. The exported ONNX takes `to_mnist` output as PIXELS
[N,1,28,28] and returns PROBABILITIES [N,10]; normalisation and softmax live in the graph.

    .venv-train/bin/python training/mnist/train.py [--dev] [--members 2] [--epochs 30]
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

PROJECT_ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(PROJECT_ROOT / "triton_repo" / "shared"), str(PROJECT_ROOT)]

from augment import augmented_epochs  # noqa: E402
from export import export_onnx  # noqa: E402
from imgproc.imaging import decode_gray  # noqa: E402
from imgproc.mnist import to_mnist  # noqa: E402
from model import DigitNet, normalised, parameter_count  # noqa: E402

from evaluation.support.digits import load_mnist, photo_style  # noqa: E402

SEED = 20_240_601
THREADS = 2  # the machine's cores are shared; never more
AUG_EPOCHS = 24  # distinct precomputed augmented copies of the training set
EPOCHS = 30  # per ensemble member
MEMBERS = 2
BATCH = 128
MAX_LR = 3e-3
WEIGHT_DECAY = 5e-4
LABEL_SMOOTHING = 0.1
DEV_TRAIN = 7_000  # --dev: train on [0, 7000), validate on [7000, 8000)
DEV_PHOTO_SEED = 7
CACHE_DIR = PROJECT_ROOT / ".cache" / "mnist"
SOURCES = ("training/mnist/augment.py", "evaluation/support/digits.py", "triton_repo/shared/imgproc/mnist.py")
ONNX_PATH = PROJECT_ROOT / "triton_repo" / "models" / "mnist_classifier" / "1" / "model.onnx"


def main() -> None:
    args = _parse_args()
    torch.manual_seed(SEED)
    started = time.perf_counter()
    digits, labels = load_mnist("train")
    augmented = _cached_augmentation(digits, args.workers)
    clean = _batch_to_mnist(digits)
    count = DEV_TRAIN if args.dev else len(digits)
    mean, std = round(float(clean[:count].mean()), 4), round(float(clean[:count].std()), 4)
    print(f"prepared {augmented.shape[0]} augmented epochs in {time.perf_counter() - started:.0f} s")  # noqa: T201
    torch.set_num_threads(THREADS)
    members = []
    for member in range(args.members):
        net = _train_member(member, augmented[:, :count], labels[:count], (mean, std), args.epochs)
        members.append(net)
        if args.dev:
            _report_dev(members, digits[count:], labels[count:], (mean, std))
    minutes = (time.perf_counter() - started) / 60
    print(f"trained {len(members)} x {parameter_count(members[0])} params in {minutes:.1f} min")  # noqa: T201
    if not args.dev:
        export_onnx(members, mean, std, clean[:BATCH], args.out)


def _parse_args() -> argparse.Namespace:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--dev", action="store_true", help="train on 7,000, validate on 7,000-7,999")
    parser.add_argument("--members", type=int, default=MEMBERS)
    parser.add_argument("--epochs", type=int, default=EPOCHS)
    parser.add_argument("--workers", type=int, default=THREADS)
    parser.add_argument("--out", type=Path, default=ONNX_PATH)
    return parser.parse_args()


def _cached_augmentation(digits: np.ndarray, workers: int) -> np.ndarray:
    """Augmented epochs for all 8,000 digits, reused while the code that makes them is unchanged."""
    key = hashlib.sha256(f"{SEED}:{AUG_EPOCHS}".encode())
    for source in SOURCES:
        key.update((PROJECT_ROOT / source).read_bytes())
    path = CACHE_DIR / f"augmented-{key.hexdigest()[:16]}.npy"
    if path.exists():
        return np.load(path, mmap_mode="r")
    augmented = augmented_epochs(digits, AUG_EPOCHS, SEED, workers)
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    np.save(path, augmented)
    return augmented


def _batch_to_mnist(digits: np.ndarray) -> np.ndarray:
    return np.stack([to_mnist(digit) for digit in digits])


def _train_member(
    member: int, augmented: np.ndarray, labels: np.ndarray, norm: tuple[float, float], epochs: int
) -> nn.Module:
    """One ensemble member: AdamW + OneCycle, label smoothing, its own order of the epochs."""
    generator = torch.Generator().manual_seed(SEED + member)
    torch.manual_seed(SEED + member)
    net = DigitNet().to(memory_format=torch.channels_last)
    steps = epochs * -(-labels.shape[0] // BATCH)
    optimizer = torch.optim.AdamW(net.parameters(), lr=MAX_LR, weight_decay=WEIGHT_DECAY)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=MAX_LR, total_steps=steps)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=LABEL_SMOOTHING)
    targets = torch.from_numpy(labels.astype(np.int64))
    for epoch in range(epochs):
        started = time.perf_counter()
        # Members walk the precomputed epochs from different starting points.
        pixels = torch.from_numpy(np.asarray(augmented[(epoch + member * epochs // 2) % len(augmented)]))
        loss = _run_epoch(net, pixels, targets, (optimizer, schedule, loss_fn), norm, generator)
        seconds = time.perf_counter() - started
        print(f"member {member} epoch {epoch + 1}/{epochs} loss {loss:.4f} {seconds:.1f} s")  # noqa: T201
    return net.eval()


def _run_epoch(
    net: nn.Module,
    pixels: torch.Tensor,
    targets: torch.Tensor,
    tools: tuple[torch.optim.Optimizer, torch.optim.lr_scheduler.LRScheduler, nn.Module],
    norm: tuple[float, float],
    generator: torch.Generator,
) -> float:
    optimizer, schedule, loss_fn = tools
    net.train()
    order = torch.randperm(len(targets), generator=generator)
    total = 0.0
    for start in range(0, len(order), BATCH):
        index = order[start : start + BATCH]
        x = normalised(pixels[index].float().unsqueeze(1), *norm)
        x = x.contiguous(memory_format=torch.channels_last)
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(net(x), targets[index])
        loss.backward()
        optimizer.step()
        schedule.step()
        total += float(loss.detach()) * len(index)
    return total / len(order)


@torch.no_grad()
def _predict(members: list[nn.Module], pixels: np.ndarray, norm: tuple[float, float]) -> np.ndarray:
    x = normalised(torch.from_numpy(pixels).unsqueeze(1), *norm)
    return torch.stack([torch.softmax(m(x), dim=1) for m in members]).mean(0).argmax(1).numpy()


def _report_dev(
    members: list[nn.Module], digits: np.ndarray, labels: np.ndarray, norm: tuple[float, float]
) -> None:
    """Accuracy on the dev digits 7,000-7,999, clean and as photos (never the held-out 2,000)."""
    rng = np.random.default_rng(DEV_PHOTO_SEED)
    photos = np.stack([to_mnist(decode_gray(photo_style(d, rng))) for d in digits])
    for name, pixels in (("clean", _batch_to_mnist(digits)), ("photo", photos)):
        accuracy = float((_predict(members, pixels, norm) == labels).mean())
        print(f"dev {name} accuracy with {len(members)} member(s): {accuracy:.4f}")  # noqa: T201


if __name__ == "__main__":
    main()
