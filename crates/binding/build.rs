//! Build script: the Node-API link setup (napi-build). Writes nothing outside the output folder.

fn main() {
    napi_build::setup();
}
