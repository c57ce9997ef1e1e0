# Build the tfgate binary, then run it on Debian with bubblewrap (the Terraform sandbox), git
# (modules from Git sources) and CA certificates. Terraform itself is not in the image: each
# worker installs the release a policy or TFGATE_TERRAFORM_VERSION names, on demand, into
# DATA_DIR/tools after checking its signed checksums (README: "Terraform and OpenTofu
# versions on demand").
FROM rust:1-bookworm AS build
WORKDIR /src
COPY Cargo.toml Cargo.lock ./
COPY src ./src
COPY migrations ./migrations
COPY templates ./templates
COPY keys ./keys
COPY tests/fixtures ./tests/fixtures
RUN cargo build --profile dist --locked --bin tfgate

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap ca-certificates git \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --home /data --shell /usr/sbin/nologin tfgate \
 && mkdir -p /data && chown tfgate /data
COPY --from=build /src/target/dist/tfgate /usr/local/bin/tfgate
COPY policies /etc/tfgate/policies-examples
USER tfgate
ENV TFGATE_DATA_DIR=/data TFGATE_ADDR=0.0.0.0:8080
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/tfgate"]
CMD ["serve"]
