"""Reports and plots. Plotting libraries are imported only when a plot is drawn."""

from hyoka.report.options import ReportOptions
from hyoka.report.scatter import ScatterPoint, ScatterSpec, write_scatter, write_scatter_grid
from hyoka.report.site import build_report

__all__ = [
    "ReportOptions",
    "ScatterPoint",
    "ScatterSpec",
    "build_report",
    "write_scatter",
    "write_scatter_grid",
]
