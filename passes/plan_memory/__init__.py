"""``--plan-memory``: launch results go into ``kernel.alloc`` buffers, reused once dead.

``plan_memory(module)`` plans a kernel-level module in place; see
``hopc.passes.plan_memory.plan_memory`` for the contract and Note [memory plan].
"""

from hopc.passes.plan_memory.plan_memory import FunctionMemory, PlanMemoryPass, plan_memory

__all__ = ["FunctionMemory", "PlanMemoryPass", "plan_memory"]
