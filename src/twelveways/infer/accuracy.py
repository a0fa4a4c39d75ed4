"""The accuracy script for AccuracyOnly runs, and an unambiguous statement of relative accuracy (F12).

LoadGen's accuracy mode sends every QSL sample once and logs each response's bytes; this script
decodes those bytes (int32 class ids), compares them with the labels, and reports top-1 accuracy.

"Relative accuracy" is ambiguous: losing 1 point from 98% is 99% of the accuracy but 150% of the
errors.  So a variant is always compared with the fp32 reference in all three forms and the one
used for the quality check is named:

* ``absolute_points``: acc - acc_ref, in percentage points; passes if acc >= acc_ref - tolerance;
* ``relative``: acc / acc_ref (MLPerf's "99% of FP32" rule); passes if acc >= (1 - tolerance) * acc_ref;
* ``relative_to_errors``: err / err_ref with err = 1 - acc; passes if err <= (1 + tolerance) * err_ref.

Usage: ``python -m twelveways.infer.accuracy --log RUN/mlperf_log_accuracy.json --labels labels.npy
[--reference-accuracy 0.97] [--definition relative] [--tolerance 0.01] [--target 0.95]``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

from ..errors import MeasurementError, TwelveWaysError
from . import parse

DEFINITIONS = ("relative", "absolute_points", "relative_to_errors")
DEFINITION_TEXT = {
    "relative": "relative: variant accuracy / fp32 accuracy, must be >= 1 - tolerance (MLPerf's 99%-of-FP32 form)",
    "absolute_points": "absolute points: variant accuracy - fp32 accuracy in percentage points, must be >= -100*tolerance",
    "relative_to_errors": "relative to errors: variant error rate / fp32 error rate, must be <= 1 + tolerance",
}


def item_outcomes(index: np.ndarray, predicted: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Per QSL sample (in QSL index order) whether its top-1 prediction is right; every sample exactly once.

    Kept item by item because two variants scored on the same items are paired data: a claim compares
    them on the items only one of them gets right (McNemar), which the counts alone cannot do.
    """
    total = labels.shape[0]
    if index.shape[0] != total or np.unique(index).shape[0] != total:
        raise MeasurementError(f"accuracy log covers {np.unique(index).shape[0]} distinct of {total} samples "
                               f"({index.shape[0]} responses): not one response per sample")
    if index.min() < 0 or index.max() >= total:
        raise MeasurementError("accuracy log names sample indices outside the QSL")
    correct = np.zeros(total, dtype=bool)
    correct[index] = predicted == labels[index]
    return correct


def summary(outcomes: np.ndarray) -> dict:
    """Top-1 accuracy of per-item outcomes: samples, correct, accuracy."""
    total, correct = int(outcomes.shape[0]), int(np.sum(outcomes))
    return {"samples": total, "correct": correct, "accuracy": correct / total}


def score(index: np.ndarray, predicted: np.ndarray, labels: np.ndarray) -> dict:
    """Top-1 accuracy over the logged responses; every QSL sample must appear exactly once."""
    return summary(item_outcomes(index, predicted, labels))


def compare(accuracy: float, reference: float, definition: str = "relative", tolerance: float = 0.01) -> dict:
    """All three relative-accuracy forms and the pass/fail of the named one."""
    if definition not in DEFINITIONS:
        raise MeasurementError(f"unknown relative-accuracy definition {definition!r} (known: {', '.join(DEFINITIONS)})")
    error, ref_error = 1.0 - accuracy, 1.0 - reference
    relative = accuracy / reference if reference > 0 else math.nan
    if ref_error > 0:
        errors_ratio = error / ref_error
    else:
        errors_ratio = 1.0 if error == 0 else math.inf
    points = 100.0 * (accuracy - reference)
    passed = {
        "relative": accuracy >= (1.0 - tolerance) * reference,
        "absolute_points": points >= -100.0 * tolerance - 1e-12,
        "relative_to_errors": error <= (1.0 + tolerance) * ref_error + 1e-12,
    }[definition]
    return {"definition": definition, "definition_text": DEFINITION_TEXT[definition], "tolerance": tolerance,
            "reference_accuracy": reference, "accuracy_delta_points": points, "relative_accuracy": relative,
            "relative_errors": errors_ratio, "within_tolerance": bool(passed)}


def evaluate(location: str | Path, labels: np.ndarray) -> dict:
    """Score an AccuracyOnly run (its directory or its mlperf_log_accuracy.json)."""
    index, predicted = parse.accuracy_log(location)
    return score(index, predicted, np.asarray(labels))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m twelveways.infer.accuracy", description=__doc__.split("\n\n")[0])
    parser.add_argument("--log", required=True, help="mlperf_log_accuracy.json of an AccuracyOnly run")
    parser.add_argument("--labels", required=True, help=".npy file of the QSL's labels, in QSL index order")
    parser.add_argument("--reference-accuracy", type=float, help="fp32 accuracy to compare with")
    parser.add_argument("--definition", choices=DEFINITIONS, default="relative")
    parser.add_argument("--tolerance", type=float, default=0.01)
    parser.add_argument("--target", type=float, help="absolute accuracy the model must reach (quality target)")
    args = parser.parse_args(argv)
    try:
        labels = np.load(args.labels, allow_pickle=False)
        result = evaluate(Path(args.log), labels)
        if args.reference_accuracy is not None:
            result.update(compare(result["accuracy"], args.reference_accuracy, args.definition, args.tolerance))
        if args.target is not None:
            result["quality_target"] = args.target
            result["quality_target_met"] = result["accuracy"] >= args.target
    except (OSError, ValueError) as exc:
        print(f"error: cannot read {args.labels}: {exc}", file=sys.stderr)
        return 1
    except TwelveWaysError as exc:
        print(f"error: {exc.one_line()}", file=sys.stderr)
        return 1
    print(json.dumps(result, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
