"""The runtime: running a module's entry functions behind one executor interface.

The frontend captures; the runtime runs. ``executors`` holds the executor
interface and the executors by name (``interpreter``, the checked reference,
and ``planned``, its fast unchecked mode: Note [planned execution] in
``plan``); ``module_call`` calls a module like a function (entry values,
copy-back of mutated inputs, outputs that alias inputs), and
``training_call`` calls a differentiated one so that autograd through its
outputs runs its backward entry (Note [training call]).
"""
