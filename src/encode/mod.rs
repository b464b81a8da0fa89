//! From events to a SAT instance: relation matrices over literals, values, the model's axioms.

pub mod cnf;
