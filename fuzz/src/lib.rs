//! Helpers shared by the fuzz targets.

pub mod plant;
