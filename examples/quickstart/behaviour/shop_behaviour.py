from shop.models import Item, total
from shop.routes import checkout


def test_total():
    assert total([Item("a", 150), Item("b", 250)]) == 400


def test_checkout():
    assert checkout(["a", "b"]) == 200
