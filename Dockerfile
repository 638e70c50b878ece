# The reviewbot GitHub Action / GitLab CI image: Python, Node and Go plus the tools that
# scripts/install-tools.sh installs (the same script the test setup runs). Rust repositories
# need a Rust toolchain with clippy in the job image; without one clippy is reported missing.
FROM golang:1.26-bookworm AS go
FROM node:20-bookworm-slim AS node

FROM python:3.11-slim-bookworm

ENV DEBIAN_FRONTEND=noninteractive \
    PIP_NO_CACHE_DIR=1 \
    REVIEWBOT_SYSTEM_PYTHON=1 \
    REVIEWBOT_EXTRAS=tools \
    REVIEWBOT_NPM_OMIT_DEV=1 \
    REVIEWBOT_TOOLS=/opt/reviewbot/tools \
    GOPATH=/opt/go \
    PATH=/usr/local/go/bin:/opt/go/bin:$PATH

RUN apt-get update \
 && apt-get install -y --no-install-recommends git ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY --from=go /usr/local/go /usr/local/go
COPY --from=node /usr/local/bin/node /usr/local/bin/node
COPY --from=node /usr/local/lib/node_modules /usr/local/lib/node_modules
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx

WORKDIR /opt/reviewbot
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY scripts ./scripts
COPY tools/package.json tools/package-lock.json tools/go-tools.txt ./tools/
RUN scripts/setup

# Repositories are mounted by the runner under another owner.
RUN git config --system --add safe.directory '*'

ENTRYPOINT ["reviewbot"]
CMD ["ci"]
