import sqlite3

from shop.models import Item, total


def checkout(names: list[str]) -> int:
    connection = sqlite3.connect(":memory:")
    rows = connection.execute("select 1").fetchall()
    items = [Item(name, 100) for name in names]
    return total(items) + len(rows) - 1
