//! The validate → repair → feedback → retry engine.
