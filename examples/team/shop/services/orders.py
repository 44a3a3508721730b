from ..models.order import Order
from ..repositories import orders


def find_order(order_id: int) -> Order | None:
    return orders.get(order_id)


def order_total(order_id: int):
    # An agent's change: the helper for the new route skips the repository and,
    # to "reuse" the route's formatting, imports the api layer.
    from ..api.routes import format_total
    order = orders.get(order_id)
    return format_total(order.total if order else 0.0)
