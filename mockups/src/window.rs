//! An MPI window over a buffer the caller owns (`MPI_Win_create`), freed
//! when dropped (`MPI_Win_free`): the target memory of `MPI_Put` and the
//! source of `MPI_Get`. rsmpi has no one-sided communication.

use mpi::datatype::Equivalence;
use mpi::ffi;
use mpi::raw::AsRaw;
use mpi::topology::Communicator;

/// How a passive-target transfer is opened and completed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Passive {
    /// `MPI_Win_lock(MPI_LOCK_SHARED)` before, `MPI_Win_unlock` after.
    Lock,
    /// `MPI_Win_flush` after, in the epoch of [`Window::create_locked_all`].
    Flush,
}

/// A window of elements of `T`; displacements count elements.
pub struct Window {
    raw: ffi::MPI_Win,
    datatype: ffi::MPI_Datatype,
    /// In a passive-target epoch to every process (`MPI_Win_lock_all`)
    /// from its creation to its drop.
    locked_all: bool,
}

impl Window {
    /// Creates a window over `len` elements at `base` on every process of
    /// `comm` (collective).
    ///
    /// # Safety
    /// `base` must be valid for `len` elements of `T` until the window is
    /// dropped, and only the window's operations may write it meanwhile.
    pub unsafe fn create<C: Communicator, T: Equivalence>(
        comm: &C,
        base: *mut T,
        len: usize,
    ) -> Window {
        let mut raw = ffi::RSMPI_WIN_NULL;
        let bytes = (len * std::mem::size_of::<T>()) as ffi::MPI_Aint;
        ffi::MPI_Win_create(
            base as *mut _,
            bytes,
            std::mem::size_of::<T>() as i32,
            ffi::RSMPI_INFO_NULL,
            comm.as_raw(),
            &mut raw,
        );
        Window {
            raw,
            datatype: T::equivalent_datatype().as_raw(),
            locked_all: false,
        }
    }

    /// [`Window::create`], then `MPI_Win_lock_all`: one passive-target
    /// epoch to every process for the window's life, in which
    /// [`Window::flush`] completes operations (`MPI_Win_unlock_all` at
    /// drop).
    ///
    /// # Safety
    /// As [`Window::create`].
    pub unsafe fn create_locked_all<C: Communicator, T: Equivalence>(
        comm: &C,
        base: *mut T,
        len: usize,
    ) -> Window {
        let mut window = Window::create(comm, base, len);
        ffi::MPI_Win_lock_all(0, window.raw);
        window.locked_all = true;
        window
    }

    /// `MPI_Win_flush` on `target`: its operations are complete at both
    /// ends (in the epoch of [`Window::create_locked_all`]).
    pub fn flush(&self, target: usize) {
        // SAFETY: the window is valid until dropped.
        unsafe {
            ffi::MPI_Win_flush(target as i32, self.raw);
        }
    }

    /// `MPI_Win_fence`: ends the access epoch before it, begins the next.
    pub fn fence(&self) {
        // SAFETY: the window is valid until dropped.
        unsafe {
            ffi::MPI_Win_fence(0, self.raw);
        }
    }

    /// `MPI_Put` of `data` to `target`'s window at element `at`.
    pub fn put<T: Equivalence>(&self, data: &[T], target: usize, at: usize) {
        // SAFETY: `data` is valid for its length, read until the epoch
        // ends; the window's datatype is T's (see `create`).
        unsafe {
            ffi::MPI_Put(
                data.as_ptr() as *const _,
                data.len() as i32,
                self.datatype,
                target as i32,
                at as ffi::MPI_Aint,
                data.len() as i32,
                self.datatype,
                self.raw,
            );
        }
    }

    /// `MPI_Get` of `into.len()` elements from `target`'s window at
    /// element `at`.
    ///
    /// # Safety
    /// `into` must not be read or written until the epoch ends (the next
    /// fence, or unlock).
    pub unsafe fn get<T: Equivalence>(&self, into: &mut [T], target: usize, at: usize) {
        ffi::MPI_Get(
            into.as_mut_ptr() as *mut _,
            into.len() as i32,
            self.datatype,
            target as i32,
            at as ffi::MPI_Aint,
            into.len() as i32,
            self.datatype,
            self.raw,
        );
    }

    /// `MPI_Win_lock(MPI_LOCK_SHARED)` on `target`: a passive-target epoch.
    pub fn lock_shared(&self, target: usize) {
        // SAFETY: the window is valid until dropped.
        unsafe {
            ffi::MPI_Win_lock(ffi::MPI_LOCK_SHARED as i32, target as i32, 0, self.raw);
        }
    }

    /// `MPI_Win_unlock` on `target`: its operations are complete at both
    /// ends.
    pub fn unlock(&self, target: usize) {
        // SAFETY: the window is valid until dropped.
        unsafe {
            ffi::MPI_Win_unlock(target as i32, self.raw);
        }
    }
}

impl Window {
    /// Opens a passive-target transfer to `target`: a lock, or nothing in
    /// the lock-all epoch.
    pub fn open(&self, target: usize, how: Passive) {
        if how == Passive::Lock {
            self.lock_shared(target);
        }
    }

    /// Completes the transfers to `target` at both ends.
    pub fn complete(&self, target: usize, how: Passive) {
        match how {
            Passive::Lock => self.unlock(target),
            Passive::Flush => self.flush(target),
        }
    }
}

impl Drop for Window {
    /// Collective, as `MPI_Win_free` is: every process drops its window of
    /// a pair alike.
    fn drop(&mut self) {
        // SAFETY: created by `create`, its epoch ended and freed once.
        unsafe {
            if self.locked_all {
                ffi::MPI_Win_unlock_all(self.raw);
            }
            ffi::MPI_Win_free(&mut self.raw);
        }
    }
}
