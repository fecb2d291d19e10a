{
  "targets": [
    {
      "target_name": "malloc",
      "sources": ["malloc.c"],
      "defines": ["NAPI_VERSION=8"]
    }
  ]
}
