# The reviewbot image (GitHub Action, GitLab CI job image): Python with ruff, mypy, basedpyright
# and pyright; Node with ESLint, Biome, TypeScript and its language server; Go with gopls and
# golangci-lint; Rust with clippy and rust-analyzer. Versions are pinned in pyproject.toml,
# tools/package-lock.json, tools/go-tools.txt and the base images below. Building it, the
# stand-ins for the base images and the choices made here: docs/image.md.
ARG PYTHON_IMAGE=python:3.11-slim-bookworm
ARG GO_IMAGE=golang:1.26-bookworm
ARG NODE_IMAGE=node:20-bookworm-slim
ARG RUST_IMAGE=rust:1.95.0-slim-bookworm

FROM ${GO_IMAGE} AS go
FROM ${NODE_IMAGE} AS node
FROM ${RUST_IMAGE} AS rust

FROM ${PYTHON_IMAGE}
ENV REVIEWBOT_TOOLS=/opt/reviewbot/tools \
    RUSTUP_HOME=/usr/local/rustup \
    CARGO_HOME=/usr/local/cargo \
    PATH=/usr/local/cargo/bin:/usr/local/go/bin:$PATH \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1

# git for the checkouts; gcc and libc headers for cargo build scripts and cgo. Debian drops a
# package's old versions from the archive, so the base image's release is the pin here.
# Repositories are mounted by the runner under another owner: git must accept them. The image
# runs as `reviewbot`, uid 1001: the user of GitHub's hosted runners, who owns the workspace a
# Docker action gets (docs/image.md); it owns rustup's home, so a rust-toolchain.toml installs.
# hadolint ignore=DL3008
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      ca-certificates git gcc libc6-dev \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --create-home --uid 1001 --user-group reviewbot \
 && git config --system --add safe.directory '*' \
 && ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx

COPY --from=go /usr/local/go /usr/local/go
COPY --from=node /usr/local/bin/node /usr/local/bin/node
COPY --from=node /usr/local/lib/node_modules /usr/local/lib/node_modules
COPY --from=rust --chown=1001:1001 /usr/local/rustup /usr/local/rustup
COPY --from=rust --chown=1001:1001 /usr/local/cargo /usr/local/cargo

# As the runtime user, so rustup's home stays theirs (no-ops where the components are present).
USER 1001
RUN rustup component add clippy rust-analyzer rust-src \
 && cargo clippy --version && rust-analyzer --version
USER 0

# The external tools first: this layer changes only with their pins, not with the bot's code.
WORKDIR /opt/reviewbot
COPY scripts/install-tools.sh scripts/
COPY tools/package.json tools/package-lock.json tools/go-tools.txt tools/
RUN --mount=type=cache,target=/root/.cache/go-build \
    --mount=type=cache,target=/root/go/pkg/mod \
    --mount=type=cache,target=/root/.npm \
    REVIEWBOT_NPM_OMIT_DEV=1 scripts/install-tools.sh \
 && node --version && go version

# Then the bot's dependencies (they change with pyproject.toml), then the bot itself.
COPY pyproject.toml ./
RUN --mount=type=cache,target=/root/.cache/pip \
    python3 -c 'import tomllib; p = tomllib.load(open("pyproject.toml", "rb"))["project"]; \
print("\n".join(p["dependencies"] + p["optional-dependencies"]["tools"]))' > /tmp/requirements.txt \
 && python3 -m pip install --root-user-action=ignore -r /tmp/requirements.txt \
 && rm /tmp/requirements.txt
COPY README.md ./
COPY bot bot/
COPY scripts scripts/
# The bundled example (example/run) builds its repository inside example/: the user's.
COPY --chown=1001:1001 example example/
RUN --mount=type=cache,target=/root/.cache/pip \
    python3 -m pip install --root-user-action=ignore --no-deps . \
 && rm -rf build reviewbot.egg-info \
 && reviewbot --version

USER 1001
ENTRYPOINT ["reviewbot"]
CMD ["ci"]
