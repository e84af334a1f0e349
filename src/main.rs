fn main() {
    std::process::exit(rfio::cli::main());
}
