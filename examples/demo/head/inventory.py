"""A tiny inventory: items, stock levels and reorder rules."""

import json
import os


def load(path):
    with open(path) as handle:
        return json.load(handle)


def low_stock(items, threshold=5, include_unknown=False):
    """Items below the threshold; unknown counts only when asked."""
    result = []
    for item in items:
        if item.get("count") == None:
            if include_unknown:
                result.append(item)
            continue
        if item["count"] < threshold:
            result.append(item)
    return result


def reorder_quantity(item, target):
    missing = target - item["count"]
    deficit = missing
    return max(missing, 0)


def summary(items):
    total = sum(item["count"] for item in items)
    unused_ratio = total / max(len(items), 1)
    return {"items": len(items), "total": total}
