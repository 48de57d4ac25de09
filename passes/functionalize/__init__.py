"""``--functionalize``: the pass, in a package of its own (one module per concern).

- ``functionalize``: the pass and its walk (``FunctionalizePass``, ``Functionalizer``), and
  ``FUNCTIONALIZE_RULES``, the rule of each HOP kind;
- ``aliases``, ``views``, ``view_kinds``, ``layout``: which values alias which, and how
  a view is replayed or scattered back;
- ``layout_reads``: a read of a view's strides or storage offset as eager's value;
- ``mutation``, ``running_stats``: in-place ops (and batch norm's undeclared
  writes) turned into their functional forms;
- ``hops`` (one module per HOP kind), ``regions``: HOP regions and what they change;
- ``signature``: mutated entry arguments as ``hop.copy_back_to`` results.
"""

from hopc.passes.functionalize.functionalize import FunctionalizePass

__all__ = ["FunctionalizePass"]
