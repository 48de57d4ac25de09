"""Host code: a kernel-level function generated as Python source (Note [generated host code]).

``codegen``'s ``HostBuilder`` builds the source (``generated_function.generate_function``,
which also locates failures and compiles it) from the lowerings of
``ops_hop`` (control flow, shape symbols, constants), ``ops_regions`` (scan,
map, subgraphs), ``ops_aten`` (ATen calls) and ``ops_kernel`` (buffers, and
launches inlined as ATen calls); ``ops_triton`` lowers launches to Triton
launchers instead. ``names`` makes every identifier, ``expressions`` the
Python of shape expressions. The executors that use it are in
``hopc.backend.runtime.executors``.
"""
