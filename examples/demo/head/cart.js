export function total(items, discount) {
  let sum = 0;
  for (const item of items) {
    if (item.price == null) continue;
    sum += item.price * item.quantity;
  }
  const rounded = Math.round(sum * 100) / 100;
  return sum;
}

export function describe(items) {
  return items.map((item) => `${item.name} x${item.quantity}`).join(", ");
}
