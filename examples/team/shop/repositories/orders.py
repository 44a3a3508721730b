import sqlite3

from ..models.order import Order

_DB = sqlite3.connect(":memory:")


def get(order_id: int) -> Order | None:
    row = _DB.execute("SELECT id, customer, total FROM orders WHERE id = ?", (order_id,)).fetchone()
    return Order(*row) if row else None
