//! The MPI tools interface (MPI_T): the library's control variables, their
//! enumerations, reading and writing them. A thin unsafe layer over
//! `mpi::ffi` (the C API as bindgen sees it) under safe wrappers; nothing
//! else in pgcheck calls MPI_T.
//!
//! MPI_T has a life of its own beside MPI_Init/MPI_Finalize: a [`Session`]
//! may start before MPI (what `pgcheck list` does) and must end before
//! MPI_Finalize (Open MPI 4.1 crashes in an MPI_T_finalize that follows it).

use mpi::ffi;
use std::ffi::{c_char, c_int, c_void};
use std::fmt;

/// An MPI_T call that did not return `MPI_SUCCESS`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub function: &'static str,
    pub code: i32,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The error classes have library-specific values: compare at run time.
        let known = [
            (ffi::MPI_T_ERR_NOT_INITIALIZED as i32, "not initialised"),
            (ffi::MPI_T_ERR_INVALID_INDEX as i32, "invalid index"),
            (ffi::MPI_T_ERR_INVALID_NAME as i32, "no such variable"),
            (ffi::MPI_T_ERR_INVALID_HANDLE as i32, "invalid handle"),
            (ffi::MPI_T_ERR_CVAR_SET_NOT_NOW as i32, "cannot be set now"),
            (ffi::MPI_T_ERR_CVAR_SET_NEVER as i32, "can never be set"),
        ];
        let what = known
            .iter()
            .find(|(code, _)| *code == self.code)
            .map_or(String::new(), |(_, what)| format!(": {what}"));
        write!(f, "{} returned {}{what}", self.function, self.code)
    }
}

/// `Ok` when `code` is `MPI_SUCCESS`.
fn check(function: &'static str, code: c_int) -> Result<(), Error> {
    match code {
        0 => Ok(()),
        code => Err(Error { function, code }),
    }
}

/// Text of at most `len` bytes that MPI_T wrote into `buf` (NUL-terminated).
fn text(buf: &[c_char]) -> String {
    let bytes: Vec<u8> = buf
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    crate::printable::line(&String::from_utf8_lossy(&bytes))
}

/// MPI_T initialised; finalised when dropped. Nested sessions are allowed
/// (MPI_T counts them).
pub struct Session {
    _not_send: std::marker::PhantomData<*const ()>,
}

impl Session {
    /// `MPI_T_init_thread` at `MPI_THREAD_SINGLE`.
    pub fn start() -> Result<Session, Error> {
        let mut provided: c_int = 0;
        // SAFETY: plain out-parameter; MPI_T may be initialised at any time.
        check("MPI_T_init_thread", unsafe {
            ffi::MPI_T_init_thread(ffi::RSMPI_THREAD_SINGLE, &mut provided)
        })?;
        Ok(Session {
            _not_send: std::marker::PhantomData,
        })
    }

    /// Every control variable the library has.
    pub fn variables(&self) -> Vec<Variable> {
        let mut count: c_int = 0;
        // SAFETY: out-parameter.
        if check("MPI_T_cvar_get_num", unsafe {
            ffi::MPI_T_cvar_get_num(&mut count)
        })
        .is_err()
        {
            return Vec::new();
        }
        (0..count)
            .filter_map(|i| self.variable_at(i).ok())
            .collect()
    }

    /// The control variable called `name`.
    pub fn variable(&self, name: &str) -> Result<Variable, Error> {
        let c_name = std::ffi::CString::new(name).map_err(|_| Error {
            function: "MPI_T_cvar_get_index",
            code: ffi::MPI_T_ERR_INVALID_NAME as i32,
        })?;
        let mut index: c_int = 0;
        // SAFETY: a NUL-terminated name and an out-parameter.
        check("MPI_T_cvar_get_index", unsafe {
            ffi::MPI_T_cvar_get_index(c_name.as_ptr(), &mut index)
        })?;
        self.variable_at(index)
    }

    fn variable_at(&self, index: c_int) -> Result<Variable, Error> {
        let mut name = [0 as c_char; 256];
        let mut description = [0 as c_char; 4096];
        let (mut name_len, mut description_len) = (name.len() as c_int, description.len() as c_int);
        let (mut verbosity, mut bind, mut scope): (c_int, c_int, c_int) = (0, 0, 0);
        // SAFETY: MPI_Datatype and MPI_T_enum are handles (an int or a
        // pointer, as the library has it) that MPI_T only writes.
        let mut datatype: ffi::MPI_Datatype = unsafe { std::mem::zeroed() };
        let mut enumeration: ffi::MPI_T_enum = std::ptr::null_mut();
        // SAFETY: buffers with their lengths, out-parameters.
        check("MPI_T_cvar_get_info", unsafe {
            ffi::MPI_T_cvar_get_info(
                index,
                name.as_mut_ptr(),
                &mut name_len,
                &mut verbosity,
                &mut datatype,
                &mut enumeration,
                description.as_mut_ptr(),
                &mut description_len,
                &mut bind,
                &mut scope,
            )
        })?;
        Ok(Variable {
            index,
            name: text(&name),
            description: text(&description),
            items: (!enumeration.is_null()).then(|| items(enumeration)),
        })
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // SAFETY: pairs the MPI_T_init_thread of `start`.
        unsafe { ffi::MPI_T_finalize() };
    }
}

/// The items of an MPI_T enumeration.
fn items(enumeration: ffi::MPI_T_enum) -> Vec<Item> {
    let mut count: c_int = 0;
    let mut name = [0 as c_char; 256];
    let mut len = name.len() as c_int;
    // SAFETY: a valid enumeration handle from MPI_T_cvar_get_info.
    if unsafe { ffi::MPI_T_enum_get_info(enumeration, &mut count, name.as_mut_ptr(), &mut len) }
        != 0
    {
        return Vec::new();
    }
    (0..count)
        .filter_map(|i| {
            let mut value: c_int = 0;
            let mut name = [0 as c_char; 256];
            let mut len = name.len() as c_int;
            // SAFETY: as above, with an index below the enumeration's count.
            let code = unsafe {
                ffi::MPI_T_enum_get_item(enumeration, i, &mut value, name.as_mut_ptr(), &mut len)
            };
            (code == 0).then(|| Item {
                value,
                name: text(&name),
            })
        })
        .collect()
}

/// One item of an enumeration: `4 = ring`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    pub value: i32,
    pub name: String,
}

/// A control variable as MPI_T describes it.
#[derive(Clone, Debug)]
pub struct Variable {
    pub index: i32,
    pub name: String,
    pub description: String,
    /// Its enumeration, when it has one.
    pub items: Option<Vec<Item>>,
}

impl Variable {
    /// A handle on this global (bound to no MPI object), integer-valued
    /// variable, as enumerations and MPICH's algorithm selectors are.
    pub fn handle(&self, _session: &Session) -> Result<Handle, Error> {
        let mut handle: ffi::MPI_T_cvar_handle = std::ptr::null_mut();
        let mut count: c_int = 0;
        // SAFETY: a global variable takes no object (a bound one fails
        // here); out-parameters.
        check("MPI_T_cvar_handle_alloc", unsafe {
            ffi::MPI_T_cvar_handle_alloc(self.index, std::ptr::null_mut(), &mut handle, &mut count)
        })?;
        let handle = Handle {
            raw: handle,
            name: self.name.clone(),
        };
        match count {
            1 => Ok(handle),
            _ => Err(Error {
                function: "MPI_T_cvar_handle_alloc (one value)",
                code: count,
            }),
        }
    }
}

/// A handle on one integer control variable; freed when dropped.
pub struct Handle {
    raw: ffi::MPI_T_cvar_handle,
    pub name: String,
}

impl Handle {
    /// The variable's value.
    pub fn read(&self) -> Result<i32, Error> {
        // Room for more than one int, should the library's int be wider.
        let mut value = [0 as c_int; 4];
        // SAFETY: a live handle on a one-element integer variable.
        check("MPI_T_cvar_read", unsafe {
            ffi::MPI_T_cvar_read(self.raw, value.as_mut_ptr() as *mut c_void)
        })?;
        Ok(value[0])
    }

    /// Sets the variable to `value`.
    pub fn write(&self, value: i32) -> Result<(), Error> {
        let value: c_int = value;
        // SAFETY: as in `read`; MPI_T copies the value.
        check("MPI_T_cvar_write", unsafe {
            ffi::MPI_T_cvar_write(self.raw, &value as *const c_int as *const c_void)
        })
    }

    /// Sets the variable to `value` until the returned [`Override`] is
    /// dropped or restored.
    pub fn set(&self, value: i32) -> Result<Override<'_>, Error> {
        let previous = self.read()?;
        self.write(value)?;
        Ok(Override {
            handle: self,
            previous,
            restored: false,
        })
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        // SAFETY: allocated by MPI_T_cvar_handle_alloc, freed once.
        unsafe { ffi::MPI_T_cvar_handle_free(&mut self.raw) };
    }
}

/// A variable set to another value; the previous one comes back on
/// [`Override::restore`] or drop.
pub struct Override<'a> {
    handle: &'a Handle,
    previous: i32,
    restored: bool,
}

impl Override<'_> {
    /// Writes the previous value back and reads it back.
    pub fn restore(mut self) -> Result<(), String> {
        self.restored = true;
        self.handle
            .write(self.previous)
            .map_err(|e| e.to_string())?;
        match self.handle.read().map_err(|e| e.to_string())? {
            v if v == self.previous => Ok(()),
            v => Err(format!(
                "{} reads {v} after restoring {}",
                self.handle.name, self.previous
            )),
        }
    }
}

impl Drop for Override<'_> {
    fn drop(&mut self) {
        if !self.restored {
            let _ = self.handle.write(self.previous);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_stops_at_the_terminating_nul() {
        let buf = [b'a' as c_char, 0, b'b' as c_char];
        assert_eq!(text(&buf), "a");
    }

    #[test]
    fn errors_name_the_function_and_what_the_code_means() {
        let e = Error {
            function: "MPI_T_cvar_write",
            code: ffi::MPI_T_ERR_CVAR_SET_NEVER as i32,
        };
        assert!(e.to_string().starts_with("MPI_T_cvar_write returned "));
        assert!(e.to_string().ends_with(": can never be set"), "{e}");
        assert_eq!(check("f", 0), Ok(()));
        assert_eq!(check("f", 3).unwrap_err().code, 3);
    }
}
