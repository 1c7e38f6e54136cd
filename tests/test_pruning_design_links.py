"""The pruning fit's design items carry value links (as asking prunes) unless turned off."""

from __future__ import annotations

from test_eval_fixtures import make_spider_dataset


def test_design_items_carry_value_links_when_on_not_when_off(tmp_path, settings):
    from sqlgenie.eval.datasets import open_dataset
    from sqlgenie.inference import eval_schema as es

    dataset = open_dataset(make_spider_dataset(tmp_path / "spider"))
    questions, _ = es._questions(dataset, None, {"shop"}, None)
    catalogs = es.prepare_catalogs(dataset, settings, {"shop"})
    pruners = es._make_pruners(catalogs, settings, None)

    on, _ = es.design_items(dataset, questions, pruners, catalogs, settings)
    off, _ = es.design_items(dataset, questions, pruners, catalogs, settings, value_links=False)
    assert [s.index for s in on] == [s.index for s in off]
    # "Customers in Paris": the value links name customer.city, as `sqlgenie link` does
    paris = next(s for s in on if s.index == 1)
    assert any(link.column.lower() == "shop.customer.city" and link.value == "Paris" for link in paris.links)
    assert not any(s.links for s in off)
    # the links change what select keeps, never the features the weights are fitted on
    for a, b in zip(on, off):
        assert (a.features == b.features).all()
    # with links the fit's selection keeps the linked column whatever δ (a value link keeps its column)
    sel = es._select(pruners["shop"], paris, pruners["shop"].score(paris.features), 0.999)
    assert "city" in sel.tables.get("shop.customer", [])

