"""Host code: a kernel-level function generated as Python source (Note [generated host code]).

``codegen``'s ``HostBuilder`` builds the source (``generated_function.generate_function``,
which also locates failures and compiles it) from the lowerings of ``HOST_LOWERINGS``:
each HOP kind's in its module of ``hopc.backend.hops`` (control flow, scan, map,
subgraphs), and in ``lowerings`` those of ``hop``'s other ops (shape symbols,
constants), ``aten`` (ATen calls) and ``kernel`` (buffers, and launches inlined as
ATen calls); ``ops_triton`` lowers launches to Triton launchers instead, and
``ops_scalars`` launches on host scalars to Python expressions. ``names`` makes every identifier, ``expressions`` the
Python of shape expressions. The executors that use it are in
``hopc.backend.runtime.executors``.
"""
