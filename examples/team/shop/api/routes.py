import sqlite3

from ..services.orders import find_order


def show_order(order_id: int) -> dict[str, object]:
    order = find_order(order_id)
    return {"id": order.id, "customer": order.customer} if order else {}


def format_total(total: float) -> str:
    return f"{total:.2f}"


def orders_by_customer(customer: str) -> list[tuple[int, float]]:
    # An agent's change: raw SQL straight from a route.
    db = sqlite3.connect("shop.db")
    return db.execute(f"SELECT id, total FROM orders WHERE customer = '{customer}'").fetchall()
