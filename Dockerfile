# Multi-stage build: a static binary on a distroless base.
FROM golang:1.26.8-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/gpuquote ./cmd/gpuquote

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/gpuquote /usr/local/bin/gpuquote
ENV GPUQUOTE_ADDR=0.0.0.0:8080
EXPOSE 8080
USER nonroot:nonroot
ENTRYPOINT ["/usr/local/bin/gpuquote"]
CMD ["serve"]
