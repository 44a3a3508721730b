from dataclasses import dataclass


@dataclass
class Item:
    name: str
    price_cents: int


def total(items: list[Item]) -> int:
    return sum(item.price_cents for item in items)
