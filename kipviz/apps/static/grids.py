"""The grids behind the static pages: each lesson dashboard's main controls and their values.

A static page cannot run a simulation, so it offers what Spark computed while the page was built:
every valid combination of two or three of the dashboard's controls (about 50 configurations),
the rest of the lesson's scenario fixed. The controls are the lesson's point: KIP-74's two fetch
limits and the partition order (lesson 1), KIP-72's pool size against large requests and the
strict what-if (lesson 2), KIP-81's ``buffer.memory`` against ``fetch.max.bytes`` (lesson 3),
when lesson 4's real plan finishes, per broker, over KIP-73's throttle and the hottest topic's
IN, KIP-770's byte bound under the three policies Kafka had
(lesson 5), lesson 6's 7 x 7 grid of fetch limits, and KIP-932's share consumers against
``max.poll.records`` under both acquire modes (lesson 7), and each client's held memory over
the compression ratio and the partitions (lesson 9). Values are Kafka's units (bytes,
bytes/s); ``None`` is the setting left unset ("no pool", "unlimited").

Each axis is labelled as the dashboard's control for that field is (its table,
:mod:`kipviz.widgets.controls`: the Kafka key from the field's declaration, or the control's own
text), and None as the control's unset choice; a grid says otherwise only where the page needs
more words than the slider (``own``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from kipviz.kafka.fetch.request import Ordering
from kipviz.kafka.units import MB, KiB, MiB
from kipviz.widgets.controls import Control, control_labels, declared_key

__all__ = ["SliderGrid", "dashboard_grids", "run_grid"]



@dataclass(frozen=True)
class SliderGrid:
    """One static page's grid: a ``base`` scenario, ``axes`` (scenario field -> the values its
    slider offers, in slider order), the Kafka setting each axis is (``labels``), the page's
    ``title`` and ``live``: how to get the live dashboard, as HTML. ``kind``: ``"sweep"`` (Spark
    sweeps the scenario, the figure is the memory and fairness summary) or ``"move_time"`` (a
    real reassignment plan's move time per broker, :mod:`kipviz.apps.static.move_grid`).
    ``unset``: how an axis labels None (its control's unset choice)."""

    name: str
    title: str
    base: Any
    axes: Mapping[str, Sequence[Any]]
    labels: Mapping[str, str]
    live: str
    kind: str = "sweep"
    unset: Mapping[str, str] = field(default_factory=dict)


def _lab(notebook: str, dashboard: str) -> str:
    return (f"<code>pip install 'kipviz[lab]' &amp;&amp; kipviz lab</code> (or "
            f"<code>make lab</code> in a clone), open <code>{notebook}</code> and run it: "
            f"<code>{dashboard}</code> there moves every setting, off this grid too, with Spark "
            f"behind it")


def _grid(dashboard: Any, title: str, base: Any, axes: Mapping[str, Sequence[Any]], live: str,
          *, kind: str = "sweep", own: Mapping[str, str] | None = None,
          controls_of: Any = None) -> SliderGrid:
    """A dashboard's grid, each axis labelled by the dashboard's control table (the control whose
    name or path the axis is; else the field's declared Kafka key) unless ``own`` says more.
    ``controls_of``: the scenario the dashboard's control paths start from (default ``base``)."""
    controls: tuple[Control, ...] = getattr(dashboard, "CONTROLS", ())
    where = base if controls_of is None else controls_of
    table = control_labels(controls, where)
    unset = {name: c.unset for c in controls if c.unset is not None
             for name in (c.key, *(p.rsplit(".", 1)[-1] for p in c.paths))}
    labels = {}
    for name in axes:
        label = (own or {}).get(name) or table.get(name) or declared_key(base, name)
        if label is not None:
            labels[name] = label
    return SliderGrid(dashboard.__name__, title, base, axes, labels, live, kind,
                      {n: unset[n] for n in axes if n in unset})


def dashboard_grids() -> dict[str, SliderGrid]:
    """The static page grid of each lesson dashboard, by the dashboard's class name."""
    from kipviz.scenarios.reassignment.plan import sample_plan
    from kipviz.scenarios.tour.scenario import ClusterScenario
    from kipviz.widgets import (
        BROKER_LESSON_SCENARIO,
        BUFFER_LESSON_SCENARIO,
        CLIENTS_LESSON_SCENARIO,
        LESSON_SCENARIO,
        SHARE_LESSON_SCENARIO,
        STREAMS_LESSON_SCENARIO,
        BrokerDashboard,
        BufferDashboard,
        ClientDashboard,
        FetchDashboard,
        GridDashboard,
        ReassignmentPlanDashboard,
        ShareGroupDashboard,
        StreamsDashboard,
        TourDashboard,
    )
    from kipviz.widgets.grid import GRID_AXES, GRID_LESSON_SCENARIO

    tour = ClusterScenario()
    grids = [
        _grid(FetchDashboard, "KIP-74: fetch limits and partition order", LESSON_SCENARIO,
              {"fetch_max_bytes": [256 * KiB, 512 * KiB, MiB, 2 * MiB, 4 * MiB, 8 * MiB,
                                   52428800],
               "max_partition_fetch_bytes": [256 * KiB, MiB, 4 * MiB],
               "ordering": [Ordering.FIXED, Ordering.ROUND_ROBIN]},
              _lab("01_fetch_size_limit.ipynb", "FetchDashboard()"),
              own={"ordering": "partition order"}),
        _grid(BrokerDashboard, "KIP-72: the broker's request memory pool", BROKER_LESSON_SCENARIO,
              {"queued_max_request_bytes": [-1, *(k * MiB for k in (10, 20, 40, 60, 100, 200))],
               "large_share": [0.05, 0.1, 0.2, 0.4], "strict": [False, True]},
              _lab("02_memory_pool.ipynb", "BrokerDashboard()"),
              own={"strict": "strict pool (what-if)"}),
        _grid(BufferDashboard, "KIP-81 (as proposed): the consumer's buffer.memory",
              BUFFER_LESSON_SCENARIO,
              {"buffer_memory_bytes": [None, 20 * MiB, 30_000_000, 50 * MiB, 100 * MiB],
               "fetch_max_bytes": [MiB, 5 * MiB, 10 * MiB, 20 * MiB, 52428800],
               "consume_bytes_per_s": [25e6, 50e6]},
              _lab("03_consumer_buffer_memory.ipynb", "BufferDashboard()"),
              own={"buffer_memory_bytes": "buffer.memory (none: today's consumer)"}),
        _grid(ReassignmentPlanDashboard, "KIP-73: when lesson 4's plan finishes, per broker",
              sample_plan(),
              {"throttle_bytes_per_s": [r * MB for r in (15, 20, 25, 35, 45, 55, 80)] + [None],
               "hottest_in_bytes_per_s": [r * MB for r in (2, 5, 10, 13.2, 20, 30)]},
              _lab("04_replication_quotas.ipynb", "ReassignmentPlanDashboard()"),
              kind="move_time",
              own={"throttle_bytes_per_s": "throttle T: --throttle, both rates, every broker",
                   "hottest_in_bytes_per_s": "IN of topic orders (the hottest), split by "
                                             "partition size"}),
        _grid(StreamsDashboard, "KIP-770: the Streams input buffer", STREAMS_LESSON_SCENARIO,
              {"input_buffer_max_bytes": [k * MiB for k in (1, 4, 8, 16, 32, 64, 128)],
               "policy": ["records_per_partition", "thread_bytes", "thread_bytes_as_merged"],
               "threads": [2, 4]},
              _lab("05_streams_input_buffer.ipynb", "StreamsDashboard()"),
              own={"policy": "pause/resume policy"}),
        _grid(TourDashboard, "The tour's consumer: KIP-74 limits and KIP-81's pool",
              tour.consumer,
              {"fetch_max_bytes": [MiB, 4 * MiB, 16 * MiB, 32 * MiB, 52428800],
               "max_partition_fetch_bytes": [256 * KiB, 512 * KiB, MiB, 2 * MiB, 4 * MiB],
               "buffer_memory_bytes": [None, 64 * MiB]},
              _lab("00_tour.ipynb", "TourDashboard()"), controls_of=tour),
        _grid(GridDashboard, "Lesson 6's grid of the two fetch limits", GRID_LESSON_SCENARIO,
              GRID_AXES, _lab("06_sweeps.ipynb", "GridDashboard()")),
        _grid(ShareGroupDashboard, "KIP-932: share consumers on 2 partitions",
              SHARE_LESSON_SCENARIO,
              {"share_consumers": [2, 4, 8, 12, 16],
               "max_poll_records": [10, 50, 100, 200, 500],
               "acquire_mode": ["batch_optimized", "record_limit"]},
              _lab("07_share_groups.ipynb", "ShareGroupDashboard()"),
              own={"share_consumers": "share consumers"}),
        _grid(ClientDashboard, "Your client: what it holds while catching up",
              CLIENTS_LESSON_SCENARIO,
              {"client": ["java", "librdkafka", "franz-go", "kafka-python"],
               "compression_ratio": [1.0, 2.0, 4.0, 8.0],
               "partitions": [100, 300, 1000]},
              _lab("09_other_clients.ipynb", "ClientDashboard()"),
              own={"compression_ratio": "compression ratio"}),
    ]
    return {grid.name: grid for grid in grids}


def run_grid(scenario: Any) -> SliderGrid:
    """The grid of ``kipviz run``'s page: the two KIP-74 fetch limits and the partition order
    around the settings read from the user's files (their own values included)."""
    def around(value: Any, others: Sequence[Any]) -> list[Any]:
        return sorted({value, *others})

    axes = {"fetch_max_bytes": around(scenario.fetch_max_bytes,
                                      [512 * KiB, MiB, 4 * MiB, 16 * MiB, 52428800]),
            "max_partition_fetch_bytes": around(scenario.max_partition_fetch_bytes,
                                                [256 * KiB, MiB, 4 * MiB]),
            "ordering": around(scenario.request_ordering, [Ordering.FIXED, Ordering.ROUND_ROBIN])}
    live = ("run <code>kipviz lab</code> and, in a notebook, "
            "<code>FetchDashboard(ConsumerScenario.from_configs(...))</code> with your files")
    from kipviz.widgets.consumer import FetchDashboard

    grid = _grid(FetchDashboard, "Your consumer around its settings", replace(scenario), axes,
                 live, own={"ordering": "partition order"})
    return replace(grid, name="run")
