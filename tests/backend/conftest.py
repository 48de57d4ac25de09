"""The backend tests run generated Triton kernels on Triton's CPU interpreter where no GPU is.

``TRITON_INTERPRET`` must be set before Triton is first imported, by whichever test
module imports it first, so it is set here, before any test module is collected.
"""

import os

import torch

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")
