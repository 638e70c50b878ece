"""A tiny inventory: items, stock levels and reorder rules."""

import json
import os


def load(path):
    with open(os.path.expanduser(path)) as handle:
        return json.load(handle)


def low_stock(items, threshold=5):
    result = []
    for item in items:
        if item.get("count") == None:
            continue
        if item["count"] < threshold:
            result.append(item)
    return result


def reorder_quantity(item, target):
    missing = target - item["count"]
    shortfall = missing
    return max(missing, 0)


def report(items):
    lines = []
    for item in items:
        if item.get("name") == None:
            continue
        lines.append(f"{item['name']}: {item['count']}")
    return "\n".join(lines)
