//! MPI collectives re-expressed with other MPI collectives: the mock-ups of
//! the self-consistent performance guidelines (Träff, Gropp, Thakur 2010;
//! PGMPI; MPINPC). One module per collective.

pub mod raw;
