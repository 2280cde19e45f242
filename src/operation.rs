//! What pgcheck checks: an operation, a collective in one form of calling
//! it. The collective says what the buffers hold before and after (and so
//! its shape and reference); the form says which MPI calls do it.

use crate::collective::Collective;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// How a collective is called.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Form {
    /// `MPI_Allreduce`.
    Blocking,
    /// `MPI_Iallreduce` and `MPI_Wait`, nothing in between.
    Nonblocking,
    /// `MPI_Allreduce_init` once (outside the timed calls), then
    /// `MPI_Start` and `MPI_Wait` (MPI-4; `MPIX_` in Open MPI 4.1).
    Persistent,
}

impl Form {
    pub const ALL: [Form; 3] = [Form::Blocking, Form::Nonblocking, Form::Persistent];

    pub fn name(self) -> &'static str {
        match self {
            Form::Blocking => "blocking",
            Form::Nonblocking => "nonblocking",
            Form::Persistent => "persistent",
        }
    }
}

/// A checked operation: a collective in one form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Operation {
    pub collective: Collective,
    pub form: Form,
}

impl Operation {
    pub const fn blocking(collective: Collective) -> Operation {
        Operation {
            collective,
            form: Form::Blocking,
        }
    }

    pub const fn nonblocking(collective: Collective) -> Operation {
        Operation {
            collective,
            form: Form::Nonblocking,
        }
    }

    pub const fn persistent(collective: Collective) -> Operation {
        Operation {
            collective,
            form: Form::Persistent,
        }
    }

    /// Every operation, in the order reports list them: the blocking
    /// collectives, then the nonblocking ones, then the persistent ones.
    pub fn all() -> impl Iterator<Item = Operation> + Clone {
        Form::ALL.into_iter().flat_map(|form| {
            Collective::ALL
                .into_iter()
                // A transfer has its blocking form alone.
                .filter(move |c| form == Form::Blocking || !c.is_transfer())
                .map(move |collective| Operation { collective, form })
        })
    }

    /// The name of inputs and reports: `allreduce`, `iallreduce`,
    /// `allreduce_init`.
    pub fn name(self) -> String {
        match self.form {
            Form::Blocking => self.collective.name().to_string(),
            Form::Nonblocking => format!("i{}", self.collective.name()),
            Form::Persistent => format!("{}_init", self.collective.name()),
        }
    }

    /// The prefix of competitor names (`iallreduce_as_…`).
    pub fn prefix(self) -> String {
        self.name().replace('_', "")
    }

    /// The MPI calls: `MPI_Allreduce`, `MPI_Iallreduce` (waited for),
    /// `MPI_Allreduce_init` (started and waited for).
    pub fn mpi_name(self) -> String {
        let blocking = self.collective.mpi_name();
        match self.form {
            Form::Blocking => blocking,
            Form::Nonblocking => {
                let mut name = String::from("MPI_I");
                name.push_str(&blocking["MPI_".len()..].to_ascii_lowercase());
                name
            }
            Form::Persistent => format!("{blocking}_init"),
        }
    }

    pub fn from_name(name: &str) -> Option<Operation> {
        Operation::all().find(|o| o.name() == name)
    }

    pub fn is_rooted(self) -> bool {
        self.collective.is_rooted()
    }

    pub fn is_reduction(self) -> bool {
        self.collective.is_reduction()
    }

    pub fn size_is_per_process(self) -> bool {
        self.collective.size_is_per_process()
    }

    /// Whether pgcheck times an in-place form: the blocking collectives'.
    pub fn has_in_place(self) -> bool {
        self.form == Form::Blocking && self.collective.has_in_place()
    }
}

impl From<Collective> for Operation {
    fn from(collective: Collective) -> Operation {
        Operation::blocking(collective)
    }
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// As its name, so that results.json and the raw files name a blocking
/// collective as they always did.
impl Serialize for Operation {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.name())
    }
}

impl<'de> Deserialize<'de> for Operation {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Operation, D::Error> {
        let name = String::deserialize(deserializer)?;
        Operation::from_name(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown operation `{name}`")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_go_and_come_back() {
        let all: Vec<Operation> = Operation::all().collect();
        // 12 collectives in three forms, 6 transfers in one.
        assert_eq!(all.len(), 42);
        assert_eq!(Operation::from_name("isend_halo"), None);
        let halo = Operation::from_name("put_halo").unwrap();
        assert_eq!(halo.mpi_name(), "MPI_Put halo");
        assert_eq!(halo.prefix(), "puthalo");
        assert!(!halo.has_in_place());
        for o in all {
            assert_eq!(Operation::from_name(&o.name()), Some(o));
            let json = serde_json::to_string(&o).unwrap();
            assert_eq!(serde_json::from_str::<Operation>(&json).unwrap(), o);
        }
        let i = Operation::nonblocking(Collective::ReduceScatterBlock);
        assert_eq!(i.name(), "ireduce_scatter_block");
        assert_eq!(i.mpi_name(), "MPI_Ireduce_scatter_block");
        assert_eq!(i.prefix(), "ireducescatterblock");
        assert_eq!(
            Operation::blocking(Collective::Allreduce).mpi_name(),
            "MPI_Allreduce"
        );
        assert_eq!(Operation::from_name("iscatter_init"), None);
        assert!(!i.has_in_place());
        let p = Operation::from_name("reduce_scatter_block_init").unwrap();
        assert_eq!(p, Operation::persistent(Collective::ReduceScatterBlock));
        assert_eq!(p.mpi_name(), "MPI_Reduce_scatter_block_init");
        assert_eq!(p.prefix(), "reducescatterblockinit");
        assert!(!p.has_in_place());
    }
}
