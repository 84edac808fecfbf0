//! The Network Block Device protocol, server side, as the NBD project's `proto.md` specifies
//! it: the fixed-newstyle handshake with its option haggling, then simple replies in the
//! transmission phase (structured replies are not offered).

pub(crate) mod handshake;
pub(crate) mod request;
pub(crate) mod wire;

pub(crate) use handshake::{negotiate, Export, Negotiated};
pub(crate) use request::{read_request, Command, RequestHeader};
pub(crate) use wire::{write_simple_reply, NbdErrno};
