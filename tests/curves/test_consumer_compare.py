"""The tables lessons 1 and 3 print come from kipviz.curves.consumer.compare, with KIP numbers."""

from __future__ import annotations

from kipviz.curves.consumer.compare import bounds_table, fill_cases_table, response_sizes
from kipviz.scenarios.consumer.scenario import ConsumerScenario, simulate
from kipviz.scenarios.workload import Workload

MiB = 1024 * 1024


def test_fill_cases_show_the_first_batch_exception_and_the_emptied_partition():
    """A 2 MiB batch comes back whole; a batch the budget cannot hold is emptied."""
    table = fill_cases_table([("big", [[2 * MiB]], 50 * MiB, MiB),
                              ("emptied", [[100], [5000], [100]], 1000, 1000)])
    assert table.iloc[0, 1] == [(2 * MiB, 1)]
    assert table.iloc[1, 1] == [(100, 1), (0, 0), (100, 1)]


def test_bounds_table_gives_kip74s_figures_in_mib():
    """min(3 x 50 MiB, 1000 x 1 MiB) = 150 MiB; before KIP-74, 1000 MiB."""
    row = bounds_table([(3, 1000)]).iloc[0]
    assert (row["pre-KIP-74 bound (MiB)"], row["KIP-74 bound (MiB)"]) == (1000.0, 150.0)


def test_no_response_exceeds_the_limit_by_more_than_one_batch():
    """KIP-74's guarantee on a run with 300 kB records and a 100 kB limit."""
    s = ConsumerScenario(partitions=4, brokers=1, fetch_max_bytes=100_000, ticks=200, windows=4,
                         workload=Workload(large_record_bytes=300_000))
    sizes = response_sizes(s, simulate(s))
    assert sizes.holds and sizes.above_limit > 0
    assert "above the limit (first-batch exceptions)" in str(sizes)
