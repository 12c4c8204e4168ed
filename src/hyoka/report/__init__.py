"""Reports and plots. Plotting libraries are imported only when a plot is drawn."""

from hyoka.report.scatter import ScatterPoint, ScatterSpec, write_scatter, write_scatter_grid

__all__ = ["ScatterPoint", "ScatterSpec", "write_scatter", "write_scatter_grid"]
