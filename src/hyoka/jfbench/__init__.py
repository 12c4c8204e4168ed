"""JFBench: PFN's Japanese instruction-following benchmark, built and decided as upstream does.

pfnet-research/jfbench (commit c8fed01) composes constraints onto IFBench's 300 prompts
translated into Japanese: ``catalogue`` holds its constraint collections in upstream's order
(166 classes, 123 decided by rules, 43 by an LLM judge), ``inputs`` reads the prompts,
``build`` reproduces upstream's benchmark entry for entry (which prompt, which constraints,
which seeds, in which order), ``rules`` decides the rule-based constraints as upstream's
classes decide them, ``scores`` summarises as upstream's ``analyze.py`` does, with
bootstrap intervals. Upstream's code is MIT and its prompts ODC-BY 1.0; hyoka reads both
and copies neither.
"""
