"""Human labeling for calibration: a local web app, its queue, storage, agreement and export.

``assay labels sample`` draws a labelling round by design (:func:`~assay.label.sample.draw_round`);
``assay label RUN_DIR`` serves :func:`assay.label.app.create_app`; labels live in a
:class:`~assay.label.store.Store` (SQLite in the run directory, or PostgreSQL) and
:func:`~assay.label.export.export_labels` writes the file ``assay calibrate --labels`` reads.
The web modules need the ``label`` extra; importing this package does not load them.
"""

from assay.label.criteria import Criterion, parse_criteria
from assay.label.export import export_labels, label_frame, majority
from assay.label.queue import build_queue, stratified_order
from assay.label.sample import active_probabilities, draw_round, split_budget
from assay.label.store import Store, database_url

__all__ = [
    "Criterion",
    "Store",
    "active_probabilities",
    "build_queue",
    "database_url",
    "draw_round",
    "export_labels",
    "label_frame",
    "majority",
    "parse_criteria",
    "split_budget",
    "stratified_order",
]
