//! `rectify run` and `rectify status` on the workflow examples under `examples/workflows/`.
