export function total(items) {
  let sum = 0;
  for (const item of items) {
    if (item.price == null) continue;
    sum += item.price * item.quantity;
  }
  return sum;
}

export function describe(items) {
  return items.map((item) => `${item.name} x${item.quantity}`).join(", ");
}
