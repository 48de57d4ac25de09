"""The FX importer: PyTorch's FX graphs at the ATen level -> hop-level IR.

Shared by the frontend (a captured program's graphs) and by autograd, whose
ATen rule imports the graph of a traced derivative with a subclass of
``GraphImporter`` (``hopc.passes.autograd.aten_rule``). A layer above
``hopc.torch_bridge`` and below ``hopc.passes`` (the ``[tool.importlinter]``
contract of ``pyproject.toml``): it knows FX graphs and nodes, and what each
HOP kind needs of capture to stay a region (``capture_rules``), which the
frontend applies; not how a program is captured, not the passes.

    importer.py         one FX graph -> one block; ATen calls and symbolic scalars
    capture_rules.py    the tables of what capture does per HOP kind
    hops/               one module per HOP kind: its import and its other capture rules
    stand_ins/          what Dynamo traces in a PyTorch function's stead, per HOP kind (torch alone)
    aten_import.py      one ATen call -> one aten op (Note [wrapped numbers])
    shape_symbols.py    torch sizes -> expression text; hop.symbol declarations
    profiler_import.py  record_function ranges -> profiler ops
    locations.py        node -> the user's file, line and column
    errors.py           an unsupported node as a located error
"""
