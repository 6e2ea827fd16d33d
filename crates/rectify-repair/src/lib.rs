//! Extraction of structured payloads from model text and deterministic, recorded repair.
