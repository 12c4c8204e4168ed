"""The benchmark definitions: one module each, holding one ``DEFINITION`` (a ``BenchSpec``).

``hyoka.mtbench.registry`` finds every module here (and those other packages offer under
the ``hyoka.benchmarks`` entry point group): adding a benchmark is adding a module here and
its data manifest (``hyoka/data/manifests/<name>.json``), no other file edited
(``docs/ADDING_A_BENCHMARK.md``). Nothing imports these modules by name but the registry
and the code of the one protocol a definition stands for.
"""
