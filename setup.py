"""Only the compiled n-gram kernel; every other setting of the package is in pyproject.toml.

``optional=True``: where no C compiler is found the package still installs, and scoring runs
on the numpy engine (``hyoka.pfgen.engine`` says so once). The flags keep every float exactly
as the numpy engine computes it: no fused multiply-add, no fast-math reordering.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "hyoka.pfgen._ngram_kernel",
            sources=[
                "src/hyoka/pfgen/_ngram_kernel.c",
                "src/hyoka/pfgen/_helpfulness.c",
                "src/hyoka/pfgen/_checksum.c",
            ],
            depends=["src/hyoka/pfgen/_kernel.h"],
            extra_compile_args=["-O2", "-ffp-contract=off", "-fno-fast-math", "-std=c11"],
            optional=True,
        )
    ]
)
