"""A cold numba compile in half the time: two costs of CPython 3.11 and numba's inliner removed.

* CPython 3.11 keeps its frames on a stack of 16 KiB chunks and unmaps a chunk as soon as the
  frame at its base returns; numba's deeply recursive compiler crosses chunk boundaries back and
  forth about two million times in a cold ``servobus run``: an mmap, a munmap and page faults each
  time, ~14 s of system time.  ``frame_chunks_kept`` installs (while compiling) an arena allocator
  that keeps up to SLOTS freed chunks for reuse and hands everything else to CPython's own.
* numba's ``InlineWorker.inline_ir`` deep-copies an inlined function block by block, each copy
  with the whole variable scope, twice per inlining (``bank_kernel._board`` and its pieces: ~5 s
  CPU); ``share_scope_copies`` makes one copy of a scope serve all the blocks of one copy, as
  the blocks share it in the original.  Neither changes the compiled code.
"""

import copy
import ctypes
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import inline_closurecall
from numba.extending import intrinsic

from servobus.bus.numba_cache import cfunc_cached

CHUNK = 16 * 1024  # CPython's DATA_STACK_CHUNK_SIZE (3.11 - 3.13)
SLOTS = 64  # freed chunks kept: 1 MiB
# the allocator's state, a uint64 array: CPython's allocator (context, alloc, free), the number
# of chunks kept, then the chunks
S_CTX, S_ALLOC, S_FREE, S_KEPT, S_CHUNKS = range(5)
CHUNKS, ONE = np.uint64(S_CHUNKS), np.uint64(1)  # unsigned: uint64 with int64 would be float


class _ArenaAllocator(ctypes.Structure):
    """CPython's ``PyObjectArenaAllocator``."""

    _fields_ = [("ctx", ctypes.c_void_p), ("alloc", ctypes.c_void_p), ("free", ctypes.c_void_p)]


def _state(typingctx: Any, addr: Any) -> Any:
    """The allocator's state (an address) as a pointer to its uint64 words."""
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.inttoptr(args[0], context.get_value_type(signature.return_type))

    return types.CPointer(types.uint64)(addr), codegen


def _call_alloc(typingctx: Any, fn: Any, ctx: Any, size: Any) -> Any:
    """CPython's arena alloc(ctx, size) at address fn."""
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        word = context.get_value_type(types.uintp)
        fnty = ir.FunctionType(word, [word, word])
        return builder.call(builder.inttoptr(args[0], fnty.as_pointer()), args[1:])

    return types.uintp(fn, ctx, size), codegen


def _call_free(typingctx: Any, fn: Any, ctx: Any, ptr: Any, size: Any) -> Any:
    """CPython's arena free(ctx, ptr, size) at address fn."""
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        word = context.get_value_type(types.uintp)
        fnty = ir.FunctionType(ir.VoidType(), [word, word, word])
        builder.call(builder.inttoptr(args[0], fnty.as_pointer()), args[1:])
        return context.get_dummy_value()

    return types.void(fn, ctx, ptr, size), codegen


state_ptr: Any = intrinsic(_state)
call_alloc: Any = intrinsic(_call_alloc)
call_free: Any = intrinsic(_call_free)


def _alloc(ctx: int, size: int) -> int:
    """An arena or a frame chunk: a kept chunk if there is one, else CPython's."""
    s = state_ptr(ctx)
    kept = s[S_KEPT]
    if size == CHUNK and kept > 0:
        kept -= ONE
        s[S_KEPT] = kept
        return s[CHUNKS + kept]
    return call_alloc(s[S_ALLOC], s[S_CTX], size)


def _free(ctx: int, ptr: int, size: int) -> None:
    """A freed frame chunk is kept while there is room; the rest goes to CPython's free."""
    s = state_ptr(ctx)
    kept = s[S_KEPT]
    if size == CHUNK and kept < SLOTS:
        s[CHUNKS + kept] = ptr
        s[S_KEPT] = kept + ONE
    else:
        call_free(s[S_FREE], s[S_CTX], ptr, size)


@contextmanager
def frame_chunks_kept() -> Iterator[None]:
    """CPython's frame-stack chunks kept for reuse while the block runs (CPython only); then
    CPython's allocator again, and the kept chunks returned to it."""
    if not hasattr(getattr(ctypes, "pythonapi", None), "PyObject_SetArenaAllocator"):
        yield  # not CPython: its own allocator as it is
        return
    word = types.uintp
    alloc = cfunc_cached(word(word, word), _alloc)
    free = cfunc_cached(types.void(word, word, word), _free)
    own = _ArenaAllocator()
    ctypes.pythonapi.PyObject_GetArenaAllocator(ctypes.byref(own))
    state = np.zeros(S_CHUNKS + SLOTS, dtype=np.uint64)
    state[S_CTX], state[S_ALLOC], state[S_FREE] = own.ctx or 0, own.alloc, own.free
    kept = _ArenaAllocator(state.ctypes.data, alloc.address, free.address)
    ctypes.pythonapi.PyObject_SetArenaAllocator(ctypes.byref(kept))
    try:
        yield
    finally:
        ctypes.pythonapi.PyObject_SetArenaAllocator(ctypes.byref(own))
        release = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)(
            own.free)
        for k in range(int(state[S_KEPT])):
            release(own.ctx, int(state[S_CHUNKS + k]), CHUNK)


class _ScopeSharingCopy:
    """``copy`` as ``inline_ir``'s block copies see it: every block of one source scope is
    copied with one memo, so the scope and its variables are copied once, shared as before."""

    copy = staticmethod(copy.copy)

    def __init__(self) -> None:
        self.memos: dict[int, dict[int, Any]] = {}

    def deepcopy(self, value: Any, memo: dict[int, Any] | None = None) -> Any:
        """A deep copy; a block's with the memo of its scope."""
        if memo is None and hasattr(value, "scope") and hasattr(value, "body"):
            memo = self.memos.setdefault(id(value.scope), {})
        return copy.deepcopy(value, memo)


_inline_ir = inline_closurecall.InlineWorker.inline_ir


def _inline_ir_sharing(self: Any, *args: Any, **kwargs: Any) -> Any:
    """numba's ``inline_ir`` with its block copies sharing their scope's copy."""
    module: Any = inline_closurecall
    saved = module.copy
    module.copy = _ScopeSharingCopy()
    try:
        return _inline_ir(self, *args, **kwargs)
    finally:
        module.copy = saved


def share_scope_copies() -> None:
    """Install ``_inline_ir_sharing`` (where numba's inliner copies blocks with ``copy``)."""
    if getattr(inline_closurecall, "copy", None) is copy:
        inline_closurecall.InlineWorker.inline_ir = _inline_ir_sharing  # type: ignore[method-assign]
