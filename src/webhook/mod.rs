//! Webhook intake: signature verification, routing, and the batched durable writer.

pub mod event;
pub mod intake;
pub mod signature;
