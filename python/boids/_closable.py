"""The lifetime of an object that holds one C handle: close(), the
context manager and the finalizer (Simulation, Recording)."""


class _Closable:
    """close(), the context manager and the finalizer of an object that holds
    one C handle in the attribute named by ``_handle_attr`` (freed by
    ``_destroy``), under ``self._lock``."""

    _handle_attr = None

    def _destroy(self, handle):
        """Frees the handle (each class its own)."""
        raise NotImplementedError

    def _finalize_here(self):
        """Whether a finalizer may free the handle on this thread."""
        return True

    def close(self) -> None:
        """Frees the handle; later calls raise ValueError. Closing twice is fine."""
        with self._lock:
            handle = getattr(self, self._handle_attr)
            if handle is not None:
                self._destroy(handle)
                setattr(self, self._handle_attr, None)

    def __enter__(self):
        """The object itself (closed at the end of the with block)."""
        return self

    def __exit__(self, *exc):
        """Closes the object."""
        self.close()

    # What a user does instead of copying (each class says it).
    _copy_instead = "make another"

    def _no_copy(self, what: str):
        """The TypeError of a copy or a pickle: the object owns a C handle,
        which a copy would share (two frees) or a pickle could not hold."""
        raise TypeError(f"{type(self).__name__} cannot be {what}: it owns a C handle that a copy would share; "
                        f"{self._copy_instead}")

    def __copy__(self):
        """Refused (see _no_copy)."""
        self._no_copy("copied")

    def __deepcopy__(self, memo):
        """Refused (see _no_copy)."""
        self._no_copy("copied")

    def __reduce_ex__(self, protocol):
        """Refused (see _no_copy): pickle and copy both come here."""
        self._no_copy("pickled or copied")

    def __del__(self):
        """Closes the object if it is still open (where _finalize_here allows)."""
        try:
            if getattr(self, self._handle_attr, None) is not None and self._finalize_here():
                self.close()
        except Exception:  # noqa: BLE001 (nothing may escape a finalizer)
            pass
