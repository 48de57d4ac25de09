"""hopc on CUDA: the ``cuda`` executor's graphs (``graphs``), conditional nodes
(``conditional_nodes``) and host-code lowering of ``kernel.graph`` (``lowering``).

``recorded_graphs(compiled)`` lists the CUDA graphs recorded so far for what
``hopc.compile`` (or an executor) made, each a ``Recording`` with ``sizes``,
``pool`` and ``conditional_nodes``.
"""

from hopc.backend.cuda.graphs import CudaGraphSizeWarning, Recording
from hopc.backend.cuda.recordings import recorded_graphs

__all__ = ["CudaGraphSizeWarning", "Recording", "recorded_graphs"]
